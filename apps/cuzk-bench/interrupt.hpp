#pragma once
// Ctrl-C handling: the first SIGINT or SIGTERM sets a flag (the commands stop submitting, cancel
// their calls in flight and report what they have); the second one ends the process as usual.
// InflightCalls lets a watcher thread cancel blocking gRPC calls made on other threads.
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

namespace cuzk::bench {

void install_interrupt_handlers();
bool interrupted();

// The client contexts of blocking calls in progress.
class InflightCalls {
 public:
  void add(grpc::ClientContext* ctx);
  void remove(grpc::ClientContext* ctx);
  void cancel_all();

 private:
  std::mutex mu_;
  std::set<grpc::ClientContext*> calls_;
};

// Registers a context for the lifetime of a call.
class InflightGuard {
 public:
  InflightGuard(InflightCalls& calls, grpc::ClientContext* ctx) : calls_(calls), ctx_(ctx) { calls_.add(ctx_); }
  ~InflightGuard() { calls_.remove(ctx_); }
  InflightGuard(const InflightGuard&) = delete;
  InflightGuard& operator=(const InflightGuard&) = delete;

 private:
  InflightCalls& calls_;
  grpc::ClientContext* ctx_;
};

// A thread that cancels every registered call once interrupted() turns true.
class InterruptWatcher {
 public:
  explicit InterruptWatcher(InflightCalls& calls);
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

 private:
  InflightCalls& calls_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace cuzk::bench
