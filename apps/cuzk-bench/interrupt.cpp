#include "interrupt.hpp"

#include <signal.h>

#include <chrono>

namespace cuzk::bench {

namespace {

volatile sig_atomic_t g_interrupted = 0;

void on_signal(int sig) {
  g_interrupted = 1;
  // The next one takes the default action.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupted() {
  return g_interrupted != 0;
}

void InflightCalls::add(grpc::ClientContext* ctx) {
  std::lock_guard lock(mu_);
  calls_.insert(ctx);
}

void InflightCalls::remove(grpc::ClientContext* ctx) {
  std::lock_guard lock(mu_);
  calls_.erase(ctx);
}

void InflightCalls::cancel_all() {
  std::lock_guard lock(mu_);
  for (auto* ctx : calls_) ctx->TryCancel();
}

InterruptWatcher::InterruptWatcher(InflightCalls& calls) : calls_(calls) {
  thread_ = std::thread([this] {
    while (!done_.load()) {
      if (interrupted()) calls_.cancel_all();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
}

InterruptWatcher::~InterruptWatcher() {
  done_ = true;
  thread_.join();
}

}  // namespace cuzk::bench
