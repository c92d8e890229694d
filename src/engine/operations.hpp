#pragma once
// The daemon's long operations (making test-only keys, extracting a PCE, building a device
// prover) while they run: GetStatus lists each with its progress, and the log gets a start line,
// at most one progress line per operation every log_interval, and an end line (not one per chunk:
// a 32 GiB key is thousands of chunks). Thread-safe.
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace cuzk::engine {

struct OperationInfo {
  std::string what;  // "test_keys", "pce_extract", "gpu_prover"
  std::string circuit_id;
  std::string unit;  // what done and total count: "points", "bytes", "steps"
  uint64_t done = 0, total = 0;
  double fraction = 0;  // done / total; 0 while the total is unknown
  double elapsed_seconds = 0;
};

class Operations {
 public:
  using Clock = std::chrono::steady_clock;

  // One running operation; it leaves the registry (and logs its end) when destroyed.
  class Handle {
   public:
    Handle() = default;
    Handle(Handle&& o) noexcept : ops_(o.ops_), id_(o.id_), exceptions_(o.exceptions_) { o.ops_ = nullptr; }
    Handle& operator=(Handle&& o) noexcept;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    // An exception unwinding through it ends the operation as failed.
    ~Handle() {
      if (ops_ && std::uncaught_exceptions() > exceptions_) fail("ended by an exception");
      end();
    }

    // Progress so far; any thread, as often as the work likes (logging is rate-limited).
    void progress(uint64_t done, uint64_t total);
    // Marks the operation failed (the first reason given stays): its end line says so.
    void fail(const std::string& error);
    // Ends it now (the destructor does it otherwise); idempotent.
    void end();

   private:
    friend class Operations;
    Handle(Operations* ops, uint64_t id) : ops_(ops), id_(id) {}
    Operations* ops_ = nullptr;
    uint64_t id_ = 0;
    int exceptions_ = std::uncaught_exceptions();  // in flight when it started
  };

  explicit Operations(std::chrono::milliseconds log_interval = std::chrono::seconds(10))
      : log_interval_(log_interval) {}
  Operations(const Operations&) = delete;
  Operations& operator=(const Operations&) = delete;

  // Registers an operation and logs its start.
  Handle start(std::string what, std::string circuit_id, std::string unit);
  // The running operations, oldest first.
  std::vector<OperationInfo> snapshot() const;
  // Called after every progress update, outside the registry's lock, on the working thread (tests:
  // to look at the engine's status in the middle of an operation). Set before any operation starts.
  void set_observer(std::function<void(const OperationInfo&)> observer) { observer_ = std::move(observer); }

 private:
  struct Entry {
    OperationInfo info;
    Clock::time_point started, last_log;
    std::string error;
  };
  void update(uint64_t id, uint64_t done, uint64_t total);
  void maybe_log(Entry& e);  // with mu_ held
  void set_error(uint64_t id, const std::string& error);
  void finish(uint64_t id);

  const std::chrono::milliseconds log_interval_;
  std::function<void(const OperationInfo&)> observer_;
  mutable std::mutex mu_;
  std::map<uint64_t, Entry> running_;  // by id: ids grow, so oldest first
  uint64_t next_id_ = 1;
};

}  // namespace cuzk::engine
