// Who reaches the listener: a unix socket's mode and group (and the directories made for it), and
// a TCP listener with an allowlist of networks whose clients call without TLS or a token, every
// other connection closed before any RPC runs (loopback only: 127.0.0.2 is listed, 127.0.0.1 not).
#include <arpa/inet.h>
#include <fcntl.h>
#include <grpcpp/create_channel_posix.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "cuzk/v1/proving.grpc.pb.h"
#include "fake_engine.hpp"
#include "server/grpc_server.hpp"
#include "server/proving_service.hpp"
#include "test_helpers.hpp"
#include "util/unix_ids.hpp"

namespace grpc_listen_test {

namespace v1 = cuzk::v1;
using cuzk::server::GrpcServer;
using cuzk::server::GrpcServerOptions;
using cuzk::server::ProvingService;
using cuzk::test::FakeEngine;
using cuzk::test::TempDir;
using std::chrono::milliseconds;

// A gid the test may give files to and that differs from the process's own where possible: as
// root, nogroup (65534); otherwise a supplementary group, else its own.
gid_t other_group() {
  if (::geteuid() == 0) return 65534;
  gid_t groups[64];
  const int n = ::getgroups(64, groups);
  for (int i = 0; i < n; ++i) {
    if (groups[i] != ::getegid()) return groups[i];
  }
  return ::getegid();
}

struct Stat {
  unsigned mode = 0;
  gid_t gid = 0;
};
Stat stat_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return {static_cast<unsigned>(st.st_mode & 07777), st.st_gid};
}

class NullService final : public v1::ProvingEngine::Service {};

TEST(GrpcListen, UnixSocketGetsItsModeAndGroupAndSoDoTheDirectoriesMadeForIt) {
  const gid_t gid = other_group();
  for (const unsigned mode : {0660u, 0666u}) {
    SCOPED_TRACE(mode);
    TempDir dir;
    const std::string path = (dir.path() / "run" / "curio" / "cuzk.sock").string();
    NullService service;
    GrpcServerOptions o{"unix://" + path, 1 << 20, 16};
    o.socket_mode = mode;
    o.socket_gid = gid;
    GrpcServer server(o, service);
    server.start();
    const Stat sock = stat_of(path);
    EXPECT_EQ(sock.mode, mode);
    EXPECT_EQ(sock.gid, gid);
    // Created here: searchable by whom the socket lets in, and theirs.
    const unsigned dir_mode = mode == 0660u ? 0750u : 0755u;
    for (const auto& d : {dir.path() / "run", dir.path() / "run" / "curio"}) {
      const Stat s = stat_of(d.string());
      EXPECT_EQ(s.mode, dir_mode) << d;
      EXPECT_EQ(s.gid, gid) << d;
    }
    server.shutdown(std::chrono::system_clock::now());
    server.wait();
  }
  // Bad options are refused before anything is created.
  NullService service;
  GrpcServerOptions o{"unix:///tmp/never.sock", 1 << 20, 16};
  o.socket_mode = 0400;
  EXPECT_THROW(GrpcServer(o, service), std::invalid_argument);
}

TEST(GrpcListen, AGroupTheDaemonMayNotUseIsAnErrorNamingIt) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may give a file to any group";
  gid_t foreign = 0;  // root's group: a non-root user is not in it
  if (cuzk::may_use_group(foreign)) GTEST_SKIP() << "this user is in group 0";
  TempDir dir;
  NullService service;
  GrpcServerOptions o{"unix://" + (dir.path() / "s.sock").string(), 1 << 20, 16};
  o.socket_mode = 0660;
  o.socket_gid = foreign;
  GrpcServer server(o, service);
  try {
    server.start();
    FAIL() << "chown to a foreign group must fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot give socket"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("must be a member of that group"), std::string::npos) << e.what();
  }
}

// ---- the allowlist ----

// A connection to 127.0.0.1:`port` from `source` (a loopback address), as a channel over that fd.
std::shared_ptr<grpc::Channel> channel_from(const char* source, uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_GE(fd, 0);
  sockaddr_in src{};
  src.sin_family = AF_INET;
  EXPECT_EQ(::inet_pton(AF_INET, source, &src.sin_addr), 1);
  EXPECT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&src), sizeof src), 0) << std::strerror(errno);
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(port);
  dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&dst), sizeof dst), 0) << std::strerror(errno);
  EXPECT_EQ(::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
  return grpc::CreateInsecureChannelFromFd("allowlist-test", fd);  // the channel owns fd
}

grpc::Status get_status(const std::shared_ptr<grpc::Channel>& channel, v1::GetStatusResponse& out) {
  auto stub = v1::ProvingEngine::NewStub(channel);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + milliseconds(5000));
  return stub->GetStatus(&ctx, {}, &out);
}

class AllowlistTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ProvingService::Options so{"9.9.9-test", milliseconds(50)};
    so.unauthenticated_from = {"127.0.0.2/32"};
    service_ = std::make_unique<ProvingService>(engine_, so);
    GrpcServerOptions go{"0.0.0.0:0", 1 << 20, 16};
    auto list = cuzk::IpNetworkList::parse({"127.0.0.2/32"}, "t");
    ASSERT_TRUE(list.ok());
    go.allow_unauthenticated_from = *list;
    go.on_connection_refused = [this] { service_->rpc_metrics().connection_refused(); };
    server_ = std::make_unique<GrpcServer>(std::move(go), *service_);
    server_->start();
  }
  void TearDown() override {
    server_->shutdown(std::chrono::system_clock::now() + milliseconds(200));
    server_->wait();
  }
  FakeEngine engine_;
  std::unique_ptr<ProvingService> service_;
  std::unique_ptr<GrpcServer> server_;
};

TEST_F(AllowlistTest, AListedPeerIsServedWithoutCredentials) {
  ASSERT_NE(server_->port(), 0);
  EXPECT_EQ(server_->address(), "0.0.0.0:" + std::to_string(server_->port()));
  v1::GetStatusResponse resp;
  const auto st = get_status(channel_from("127.0.0.2", server_->port()), resp);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(resp.version(), "9.9.9-test");
  ASSERT_EQ(resp.unauthenticated_from_size(), 1);
  EXPECT_EQ(resp.unauthenticated_from(0), "127.0.0.2/32");
  EXPECT_EQ(engine_.status_calls.load(), 1);
  EXPECT_NE(service_->status_json().find("\"unauthenticated_from\":[\"127.0.0.2/32\"]"), std::string::npos)
      << service_->status_json();
  EXPECT_EQ(service_->rpc_metrics().connections_refused(), 0u);
}

TEST_F(AllowlistTest, AnyOtherPeerIsClosedBeforeAnyRpc) {
  v1::GetStatusResponse resp;
  const auto st = get_status(channel_from("127.0.0.1", server_->port()), resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE) << st.error_message();
  EXPECT_EQ(engine_.status_calls.load(), 0);
  // The refusal is counted after the close that the client saw: wait for it.
  for (int i = 0; i < 200 && service_->rpc_metrics().connections_refused() == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(service_->rpc_metrics().connections_refused(), 1u);
  const std::string metrics = service_->metrics_text();
  EXPECT_NE(metrics.find("cuzk_grpc_connections_refused_total 1\n"), std::string::npos) << metrics;
  EXPECT_EQ(metrics.find("cuzk_grpc_requests_total{method=\"GetStatus\""), std::string::npos)
      << "no RPC ran: " << metrics;
  // The listener serves on: a listed peer afterwards is answered.
  EXPECT_TRUE(get_status(channel_from("127.0.0.2", server_->port()), resp).ok());
  EXPECT_EQ(engine_.status_calls.load(), 1);
}

TEST(GrpcListen, AnAllowlistIsForAPlaintextTcpListener) {
  NullService service;
  auto list = cuzk::IpNetworkList::parse({"10.0.0.0/8"}, "t");
  ASSERT_TRUE(list.ok());
  GrpcServerOptions unix_socket{"unix:///tmp/never.sock", 1 << 20, 16};
  unix_socket.allow_unauthenticated_from = *list;
  EXPECT_THROW(GrpcServer(unix_socket, service), std::invalid_argument);
  GrpcServerOptions tls{"127.0.0.1:0", 1 << 20, 16};
  tls.allow_unauthenticated_from = *list;
  tls.tls = cuzk::server::TlsFiles{"cert", "key", ""};
  EXPECT_THROW(GrpcServer(tls, service), std::invalid_argument);
  // Address in use: the same message as gRPC's own listener.
  NullService other;
  GrpcServer first({"127.0.0.1:0", 1 << 20, 16}, other);
  first.start();
  GrpcServerOptions taken{first.address(), 1 << 20, 16};
  taken.allow_unauthenticated_from = *list;
  GrpcServer second(taken, service);
  try {
    second.start();
    FAIL() << "the port is taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("address already in use"), std::string::npos) << e.what();
  }
}

}  // namespace grpc_listen_test
