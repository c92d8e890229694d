#pragma once
// A minimal HTTP/1.1 endpoint for scrapers and people: GET /metrics (Prometheus text) and
// GET /status (JSON), anything else 404. One thread serves one connection at a time, with a
// bounded request (8 KiB), a 2 s read and write timeout per connection and "Connection: close";
// that is plenty for a scraper and means a stuck or hostile client cannot pin more than one
// connection's worth of resources.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

namespace cuzk::server {

class MetricsHttpServer {
 public:
  using Callback = std::function<std::string()>;
  struct Options {
    std::string listen;  // "host:port"; port 0 picks a free one
    // Without it only loopback addresses are accepted (metrics reveal job ids and load).
    bool allow_remote = false;
    size_t max_request_bytes = 8 * 1024;
    std::chrono::milliseconds io_timeout{2000};
  };

  // The callbacks run on the server thread; an exception from one becomes a 500 response.
  MetricsHttpServer(Options options, Callback metrics, Callback status);
  ~MetricsHttpServer();  // stop()
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  // Binds, listens and starts the thread. Throws std::runtime_error (address in use, not a
  // loopback address, ...) or std::invalid_argument (malformed address).
  void start();
  // Stops within about 100 ms (the poll interval); idempotent.
  void stop();

  uint16_t port() const { return port_; }
  std::string address() const;  // "host:port" with the bound port

 private:
  void run();
  void serve_connection(int fd);
  std::string respond(const std::string& request);

  Options options_;
  Callback metrics_;
  Callback status_;
  std::string host_;
  uint16_t port_ = 0;
  int listen_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace cuzk::server
