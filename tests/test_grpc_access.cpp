// Who may call the daemon and how much they may send (README "Running it safely"): credential files
// (token and PEM permissions and contents), the bearer token on every RPC, the per-RPC request
// caps checked before the engine sees a request, and TLS with certificates made here by the openssl
// CLI (a CA, a server and a client certificate, and a second CA nobody trusts).
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cuzk/v1/proving.grpc.pb.h"
#include "fake_engine.hpp"
#include "server/grpc_server.hpp"
#include "server/proving_service.hpp"
#include "test_helpers.hpp"
#include "util/secret_file.hpp"

namespace {

namespace fs = std::filesystem;
namespace v1 = cuzk::v1;
using cuzk::server::bearer_token_matches;
using cuzk::server::GrpcServer;
using cuzk::server::GrpcServerOptions;
using cuzk::server::ProvingService;
using cuzk::server::TlsFiles;
using cuzk::test::FakeEngine;
using cuzk::test::TempDir;
using std::chrono::milliseconds;

constexpr const char* kToken = "0123456789abcdef-test-token";

std::string write_file(const TempDir& dir, const std::string& name, const std::string& text, mode_t mode) {
  const fs::path p = dir.write(name, text);
  EXPECT_EQ(::chmod(p.c_str(), mode), 0);
  return p.string();
}

std::string slurp(const fs::path& p) {
  std::string out;
  if (FILE* f = std::fopen(p.c_str(), "rb")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    std::fclose(f);
  }
  return out;
}

bool mentions(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// ---- credential files ----

TEST(SecretFile, TokenFileNeedsOwnerOnlyModeAndAUsableToken) {
  TempDir dir;
  auto ok = cuzk::read_bearer_token(write_file(dir, "t", std::string(kToken) + "\n", 0600));
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(*ok, kToken) << "the trailing newline is not part of the token";
  EXPECT_TRUE(cuzk::read_bearer_token(write_file(dir, "t400", kToken, 0400)).ok());

  const std::string loose = write_file(dir, "loose", kToken, 0644);
  auto r = cuzk::read_bearer_token(loose);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(mentions(r.error(), "mode 0644")) << r.error();
  EXPECT_TRUE(mentions(r.error(), "chmod 600 " + loose)) << r.error();
  EXPECT_FALSE(cuzk::read_bearer_token(write_file(dir, "group", kToken, 0640)).ok());

  r = cuzk::read_bearer_token(write_file(dir, "short", "abc123\n", 0600));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(mentions(r.error(), "6 characters; at least 16")) << r.error();
  r = cuzk::read_bearer_token(write_file(dir, "space", "0123456789 abcdef", 0600));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(mentions(r.error(), "offset 10")) << r.error();
  EXPECT_FALSE(cuzk::read_bearer_token(write_file(dir, "two-lines", std::string(kToken) + "\nmore\n", 0600)).ok());
  EXPECT_FALSE(cuzk::read_bearer_token(write_file(dir, "huge", std::string(5000, 'a'), 0600)).ok());

  r = cuzk::read_bearer_token((dir.path() / "missing").string());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(mentions(r.error(), "cannot open the token file " + (dir.path() / "missing").string())) << r.error();
  r = cuzk::read_bearer_token(dir.str());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(mentions(r.error(), "not a regular file")) << r.error();
}

TEST(SecretFile, PemFilesArePemAndPrivateKeysPrivate) {
  TempDir dir;
  const std::string pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  EXPECT_TRUE(cuzk::read_pem_file(write_file(dir, "cert.pem", pem, 0644), "cert", false).ok());
  auto r = cuzk::read_pem_file(write_file(dir, "der.pem", std::string("\x30\x82\x01\x0a", 4), 0644), "cert", false);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(mentions(r.error(), "not in PEM format")) << r.error();
  r = cuzk::read_pem_file(write_file(dir, "key.pem", pem, 0644), "daemon.tls_key file", true);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(mentions(r.error(), "daemon.tls_key file")) << r.error();
  EXPECT_TRUE(mentions(r.error(), "chmod 600")) << r.error();
  EXPECT_TRUE(cuzk::read_pem_file(write_file(dir, "key600.pem", pem, 0600), "key", true).ok());
}

TEST(BearerToken, MatchesOnlyTheExactTokenWithTheBearerScheme) {
  EXPECT_TRUE(bearer_token_matches("Bearer abcdef", "abcdef"));
  EXPECT_TRUE(bearer_token_matches("bearer abcdef", "abcdef")) << "the scheme is case-insensitive";
  EXPECT_FALSE(bearer_token_matches("Bearer abcdeg", "abcdef"));
  EXPECT_FALSE(bearer_token_matches("Bearer abcde", "abcdef"));
  EXPECT_FALSE(bearer_token_matches("Bearer abcdefg", "abcdef"));
  EXPECT_FALSE(bearer_token_matches("Bearer ABCDEF", "abcdef")) << "the token is case-sensitive";
  EXPECT_FALSE(bearer_token_matches("Basic abcdef", "abcdef"));
  EXPECT_FALSE(bearer_token_matches("abcdef", "abcdef"));
  EXPECT_FALSE(bearer_token_matches("", "abcdef"));
}

// ---- a server with a token and request caps ----

// Small enough that every request fits HTTP/2's initial 64 KiB window: a larger request followed by
// the end of its connection sometimes makes grpc::Server's destructor wait 10 s (gRPC 1.51).
constexpr uint64_t kTransportLimit = 60 << 10;
constexpr uint64_t kProofCap = 32 << 10;
constexpr uint64_t kControlCap = 4 << 10;

class AccessTest : public ::testing::Test {
 protected:
  void start(const std::string& listen, std::optional<TlsFiles> tls, const std::string& token) {
    ProvingService::Options so{"9.9.9-test", milliseconds(50)};
    so.max_request_bytes = kProofCap;
    so.max_control_request_bytes = kControlCap;
    so.bearer_token = token;
    service_ = std::make_unique<ProvingService>(engine_, so);
    GrpcServerOptions go{listen, kTransportLimit, 16};
    go.tls = std::move(tls);
    server_ = std::make_unique<GrpcServer>(std::move(go), *service_);
    server_->start();
  }
  void TearDown() override {
    if (server_) {
      server_->shutdown(std::chrono::system_clock::now() + milliseconds(200));
      server_->wait();
    }
  }
  std::unique_ptr<v1::ProvingEngine::Stub> stub(const std::shared_ptr<grpc::ChannelCredentials>& creds,
                                                const std::string& server_name = "") const {
    grpc::ChannelArguments args;
    args.SetMaxSendMessageSize(64 << 20);
    if (!server_name.empty()) args.SetSslTargetNameOverride(server_name);
    return v1::ProvingEngine::NewStub(grpc::CreateCustomChannel(server_->address(), creds, args));
  }
  static std::unique_ptr<grpc::ClientContext> context(const std::string& token = "") {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(std::chrono::system_clock::now() + milliseconds(5000));
    if (!token.empty()) ctx->AddMetadata("authorization", "Bearer " + token);
    return ctx;
  }
  grpc::Status get_status(v1::ProvingEngine::Stub& s, const std::string& token = "") {
    v1::GetStatusResponse resp;
    auto ctx = context(token);
    return s.GetStatus(ctx.get(), {}, &resp);
  }

  TempDir dir_;
  FakeEngine engine_;
  std::unique_ptr<ProvingService> service_;
  std::unique_ptr<GrpcServer> server_;
};

TEST_F(AccessTest, EveryRpcNeedsTheBearerToken) {
  start("unix://" + (dir_.path() / "cuzk.sock").string(), std::nullopt, kToken);
  auto s = stub(grpc::InsecureChannelCredentials());
  for (const std::string& token : {std::string(), std::string("wrong-token-0123456789")}) {
    SCOPED_TRACE(token.empty() ? "no token" : "wrong token");
    v1::SubmitProofRequest submit;
    submit.set_proof_kind(v1::GENERIC);
    submit.set_circuit_id("chain:2^10");
    std::vector<grpc::Status> st;
    v1::SubmitProofResponse r1;
    st.push_back(s->SubmitProof(context(token).get(), submit, &r1));
    v1::ProveRequest prove;
    *prove.mutable_submit() = submit;
    v1::ProveResponse r2;
    st.push_back(s->Prove(context(token).get(), prove, &r2));
    v1::AwaitProofRequest await;
    await.set_job_id("done-1");
    v1::AwaitProofResponse r3;
    st.push_back(s->AwaitProof(context(token).get(), await, &r3));
    v1::CancelProofRequest cancel;
    cancel.set_job_id("done-1");
    v1::CancelProofResponse r4;
    st.push_back(s->CancelProof(context(token).get(), cancel, &r4));
    st.push_back(get_status(*s, token));
    v1::GetMetricsResponse r5;
    st.push_back(s->GetMetrics(context(token).get(), {}, &r5));
    v1::PreloadSrsRequest preload;
    preload.set_circuit_id("chain:2^10");
    v1::PreloadSrsResponse r6;
    st.push_back(s->PreloadSRS(context(token).get(), preload, &r6));
    v1::EvictSrsRequest evict;
    evict.set_circuit_id("chain:2^10");
    v1::EvictSrsResponse r7;
    st.push_back(s->EvictSRS(context(token).get(), evict, &r7));
    v1::GetVerifyingKeyRequest vk;
    vk.set_circuit_id("chain:2^10");
    v1::GetVerifyingKeyResponse r8;
    st.push_back(s->GetVerifyingKey(context(token).get(), vk, &r8));
    ASSERT_EQ(st.size(), 9u);
    for (const auto& x : st) {
      EXPECT_EQ(x.error_code(), grpc::StatusCode::UNAUTHENTICATED) << x.error_message();
      EXPECT_TRUE(mentions(x.error_message(), token.empty() ? "requires a bearer token" : "bearer token is wrong"))
          << x.error_message();
    }
  }
  {
    std::lock_guard lock(engine_.mu_);
    EXPECT_TRUE(engine_.submits.empty());
    EXPECT_TRUE(engine_.awaits.empty());
    EXPECT_TRUE(engine_.cancels.empty());
  }
  EXPECT_EQ(engine_.status_calls.load(), 0);

  // An oversized request without the token is refused as unauthenticated: nothing about the
  // request is looked at before the caller is known.
  v1::SubmitProofRequest big;
  big.set_proof_kind(v1::GENERIC);
  big.add_witnesses(std::string(kProofCap + 1, 'w'));
  v1::SubmitProofResponse resp;
  EXPECT_EQ(s->SubmitProof(context().get(), big, &resp).error_code(), grpc::StatusCode::UNAUTHENTICATED);

  const auto ok = get_status(*s, kToken);
  EXPECT_TRUE(ok.ok()) << ok.error_message();
  EXPECT_EQ(engine_.status_calls.load(), 1);
  EXPECT_TRUE(
      mentions(service_->metrics_text(), "cuzk_grpc_requests_total{method=\"GetStatus\",code=\"UNAUTHENTICATED\"} 2"))
      << service_->metrics_text();
}

TEST_F(AccessTest, RequestCapsPerRpcRefuseBeforeTheEngineSeesTheRequest) {
  start("unix://" + (dir_.path() / "cuzk.sock").string(), std::nullopt, "");
  auto s = stub(grpc::InsecureChannelCredentials());
  // A proof request over daemon.max_message_bytes but under the transport's limit: INVALID_ARGUMENT
  // naming the limit, and the engine never sees it.
  v1::SubmitProofRequest req;
  req.set_proof_kind(v1::POREP_SEAL_COMMIT);
  req.set_vanilla_proof(std::string(kProofCap + 100, '{'));
  v1::SubmitProofResponse resp;
  auto st = s->SubmitProof(context().get(), req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << st.error_message();
  EXPECT_TRUE(mentions(st.error_message(), "more than daemon.max_message_bytes = 32768")) << st.error_message();
  v1::ProveRequest prove;
  *prove.mutable_submit() = req;
  v1::ProveResponse presp;
  st = s->Prove(context().get(), prove, &presp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << st.error_message();
  // Over the transport's limit: gRPC refuses it before the service is called.
  req.set_vanilla_proof(std::string(kTransportLimit + 1, '{'));
  st = s->SubmitProof(context().get(), req, &resp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << st.error_message();

  // Calls that carry ids only have a small cap of their own.
  v1::AwaitProofRequest await;
  await.set_job_id(std::string(5000, 'j'));
  v1::AwaitProofResponse aresp;
  st = s->AwaitProof(context().get(), await, &aresp);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << st.error_message();
  EXPECT_TRUE(mentions(st.error_message(), "AwaitProof request is 5003 bytes")) << st.error_message();
  EXPECT_TRUE(mentions(st.error_message(), "limited to 4096 bytes")) << st.error_message();
  v1::CancelProofRequest cancel;
  cancel.set_job_id(std::string(5000, 'j'));
  v1::CancelProofResponse cresp;
  EXPECT_EQ(s->CancelProof(context().get(), cancel, &cresp).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  {
    std::lock_guard lock(engine_.mu_);
    EXPECT_TRUE(engine_.submits.empty());
    EXPECT_TRUE(engine_.awaits.empty());
    EXPECT_TRUE(engine_.cancels.empty());
  }
  // Requests at the caps pass.
  req.set_vanilla_proof(std::string(kProofCap - 64, '{'));
  req.set_proof_kind(v1::GENERIC);
  req.set_circuit_id("chain:2^10");
  st = s->SubmitProof(context().get(), req, &resp);
  EXPECT_TRUE(st.ok()) << st.error_message();
  await.set_job_id("done-1");
  st = s->AwaitProof(context().get(), await, &aresp);
  EXPECT_TRUE(st.ok()) << st.error_message();
}

// ---- TLS ----

// A CA, a server certificate for localhost/127.0.0.1, a client certificate, and a second CA; EC keys
// (milliseconds each), private keys mode 0600.
class TlsMaterial {
 public:
  TlsMaterial() {
    const std::string d = dir_.str();
    dir_.write("server.ext", "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    dir_.write("client.ext", "extendedKeyUsage=clientAuth\n");
    const std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes ";
    const std::string script =
        "set -e; cd '" + d + "'; umask 077\n" + "for ca in ca other-ca; do openssl req -x509" + ec +
        "-keyout $ca.key -out $ca.pem -days 2 -subj /CN=cuzk-test-$ca "
        "-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign; done\n" +
        "for who in server client; do openssl req" + ec +
        "-keyout $who.key -out $who.csr -subj /CN=cuzk-test-$who; "
        "openssl x509 -req -in $who.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
        "-extfile $who.ext -out $who.pem; done\n";
    const std::string command = "bash '" + dir_.write("make.sh", script).string() + "' >'" + d + "/openssl.log' 2>&1";
    ok_ = std::system(command.c_str()) == 0;
  }
  bool ok() const { return ok_; }
  std::string log() const { return slurp(dir_.path() / "openssl.log"); }
  std::string file(const std::string& name) const { return (dir_.path() / name).string(); }
  std::string pem(const std::string& name) const {
    auto r = cuzk::read_pem_file(file(name), name, name.ends_with(".key"));
    EXPECT_TRUE(r.ok()) << r.error();
    return r.ok() ? *r : "";
  }
  TlsFiles server(bool require_client_cert) const {
    return {pem("server.pem"), pem("server.key"), require_client_cert ? pem("ca.pem") : ""};
  }
  std::shared_ptr<grpc::ChannelCredentials> client(const std::string& ca, bool with_cert = false) const {
    grpc::SslCredentialsOptions o;
    o.pem_root_certs = pem(ca);
    if (with_cert) {
      o.pem_cert_chain = pem("client.pem");
      o.pem_private_key = pem("client.key");
    }
    return grpc::SslCredentials(o);
  }

 private:
  TempDir dir_;
  bool ok_ = false;
};

const TlsMaterial& tls_material() {
  static const TlsMaterial m;
  return m;
}

TEST_F(AccessTest, TlsServesClientsThatTrustItsCa) {
  const auto& m = tls_material();
  ASSERT_TRUE(m.ok()) << "openssl failed: " << m.log();
  start("127.0.0.1:0", m.server(false), "");
  auto st = get_status(*stub(m.client("ca.pem"), "localhost"));
  EXPECT_TRUE(st.ok()) << st.error_message();
  st = get_status(*stub(m.client("ca.pem")));  // by IP: the certificate names 127.0.0.1 too
  EXPECT_TRUE(st.ok()) << st.error_message();
  // A plaintext client and one that trusts another CA never reach the service.
  st = get_status(*stub(grpc::InsecureChannelCredentials()));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE) << st.error_message();
  st = get_status(*stub(m.client("other-ca.pem"), "localhost"));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE) << st.error_message();
  EXPECT_EQ(engine_.status_calls.load(), 2);
}

TEST_F(AccessTest, TlsWithClientCaNeedsAClientCertificate) {
  const auto& m = tls_material();
  ASSERT_TRUE(m.ok()) << "openssl failed: " << m.log();
  start("127.0.0.1:0", m.server(true), kToken);
  auto st = get_status(*stub(m.client("ca.pem")), kToken);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE) << st.error_message();
  st = get_status(*stub(m.client("ca.pem", true)), kToken);
  EXPECT_TRUE(st.ok()) << st.error_message();
  // TLS and the token together: a client with a certificate still needs the token.
  st = get_status(*stub(m.client("ca.pem", true)));
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED) << st.error_message();
  EXPECT_EQ(engine_.status_calls.load(), 1);
}

TEST(GrpcServerTls, RefusesAMismatchedKeyAndTlsOnAUnixSocket) {
  const auto& m = tls_material();
  ASSERT_TRUE(m.ok()) << "openssl failed: " << m.log();
  FakeEngine engine;
  ProvingService service(engine, {"t", milliseconds(50)});
  GrpcServerOptions o{"127.0.0.1:0", kTransportLimit, 16};
  o.tls = TlsFiles{m.pem("server.pem"), m.pem("client.key"), ""};
  GrpcServer server(o, service);
  try {
    server.start();
    FAIL() << "a key that does not match the certificate must be refused";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(mentions(e.what(), "could not set up TLS")) << e.what();
    EXPECT_TRUE(mentions(e.what(), "daemon.tls_key")) << e.what();
  }
  TempDir dir;
  o.listen = "unix://" + (dir.path() / "s.sock").string();
  o.tls = m.server(false);
  EXPECT_THROW(GrpcServer(o, service), std::invalid_argument);
}

TEST_F(AccessTest, PythonClientUsesTlsAndTheToken) {
  const auto& m = tls_material();
  ASSERT_TRUE(m.ok()) << "openssl failed: " << m.log();
  if (std::system("/usr/bin/python3 -c 'import grpc, google.protobuf' 2>/dev/null") != 0) {
    GTEST_SKIP() << "python3 with grpcio and protobuf is not installed";
  }
  start("127.0.0.1:0", m.server(true), kToken);
  const std::string token_file = write_file(dir_, "token", std::string(kToken) + "\n", 0600);
  const std::string client = (fs::path(CUZK_VECTORS_DIR).parent_path() / "daemon_client.py").string();
  const std::string base = "/usr/bin/python3 " + client + " --address " + server_->address() + " --tls-ca " +
                           m.file("ca.pem") + " --tls-cert " + m.file("client.pem") + " --tls-key " +
                           m.file("client.key") + " --tls-server-name localhost ";
  const std::string out = dir_.str() + "/py.out";
  int rc = std::system((base + "--token-file " + token_file + " status >" + out + " 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 0) << slurp(out);
  rc = std::system((base + "status >" + out + " 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 1);
  EXPECT_TRUE(mentions(slurp(out), "UNAUTHENTICATED")) << slurp(out);
  EXPECT_EQ(engine_.status_calls.load(), 1);
}

}  // namespace
