// The configuration rules of the unix socket's mode and group (daemon.socket_mode, socket_group)
// and of the allowlist of unauthenticated networks (daemon.allow_unauthenticated_from).
#include <grp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "engine/config.hpp"

namespace config_access_test {

using cuzk::engine::parse_config;

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// "" when the text parses and finalizes, else the error.
std::string access_error(const std::string& toml) {
  auto cfg = parse_config(toml, "a.toml");
  if (!cfg) return cfg.error();
  auto r = cfg->finalize();
  return r ? "" : r.error();
}

unsigned mode_of(const std::string& value) {
  auto cfg = parse_config("[daemon]\nsocket_mode = " + value + "\n", "a.toml");
  EXPECT_TRUE(cfg.ok()) << value << ": " << cfg.error();
  if (!cfg.ok()) return 0;
  EXPECT_TRUE(cfg->finalize().ok()) << value;
  return cfg->daemon.socket_mode;
}

std::string own_group_name() {
  const group* g = ::getgrgid(::getegid());
  return g ? g->gr_name : "";
}

TEST(ConfigAccess, SocketModeIsOctalWithOwnerReadWrite) {
  EXPECT_EQ(mode_of("\"0660\""), 0660u);
  EXPECT_EQ(mode_of("\"660\""), 0660u);
  EXPECT_EQ(mode_of("0o660"), 0660u) << "a TOML octal integer";
  EXPECT_EQ(mode_of("\"0600\""), 0600u);
  EXPECT_EQ(mode_of("\"0777\""), 0777u);
  EXPECT_EQ(mode_of("\"0640\""), 0640u);
  EXPECT_EQ(access_error("").empty(), true);
  auto d = parse_config("", "a.toml");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->daemon.socket_mode, 0600u) << "the default: owner only";

  std::string e = access_error("[daemon]\nsocket_mode = \"0x1b0\"\n");
  EXPECT_TRUE(has(e, "a.toml:2:15: daemon.socket_mode: \"0x1b0\" is not an octal mode")) << e;
  e = access_error("[daemon]\nsocket_mode = \"0680\"\n");
  EXPECT_TRUE(has(e, "\"0680\" is not an octal mode")) << e;
  e = access_error("[daemon]\nsocket_mode = \"\"\n");
  EXPECT_TRUE(has(e, "\"\" is not an octal mode")) << e;
  e = access_error("[daemon]\nsocket_mode = true\n");
  EXPECT_TRUE(has(e, "expected an octal mode such as \"0660\", got a boolean")) << e;
  for (const char* bad : {"\"0400\"", "\"0200\"", "\"0066\"", "\"1660\"", "\"4777\"", "660"}) {
    e = access_error(std::string("[daemon]\nsocket_mode = ") + bad + "\n");
    EXPECT_TRUE(has(e,
                    "expected an octal mode from 0600 to 0777 in which the owner (the daemon's user) can read "
                    "and write"))
        << bad << ": " << e;
  }
  // 660 written as a decimal integer is 0o1224: refused, with the value shown in octal.
  e = access_error("[daemon]\nsocket_mode = 660\n");
  EXPECT_TRUE(has(e, "daemon.socket_mode = \"1224\"")) << e;
}

TEST(ConfigAccess, SocketGroupMustExist) {
  const std::string own = own_group_name();
  ASSERT_FALSE(own.empty());
  EXPECT_EQ(access_error("[daemon]\nsocket_mode = \"0660\"\nsocket_group = \"" + own + "\"\n"), "");
  EXPECT_EQ(access_error("[daemon]\nsocket_group = " + std::to_string(::getegid()) + "\n"), "");
  EXPECT_EQ(access_error("[daemon]\nsocket_group = \"123456\"\n"), "") << "any numeric gid, named or not";
  std::string e = access_error("[daemon]\nsocket_group = \"no-such-group-cuzk\"\n");
  EXPECT_EQ(e,
            "daemon.socket_group = \"no-such-group-cuzk\": no group named 'no-such-group-cuzk' on this host "
            "(getent group no-such-group-cuzk)");
  e = access_error("[daemon]\nsocket_group = -1\n");
  EXPECT_TRUE(has(e, "daemon.socket_group: a gid must be 0..4294967294, got -1")) << e;
  e = access_error("[daemon]\nsocket_group = [\"a\"]\n");
  EXPECT_TRUE(has(e, "expected a group name or a numeric gid, got an array")) << e;
}

TEST(ConfigAccess, SocketKeysAreForUnixSockets) {
  std::string e = access_error("[daemon]\nlisten = \"127.0.0.1:9820\"\nsocket_mode = \"0660\"\n");
  EXPECT_EQ(e,
            "daemon.socket_mode has no effect: daemon.listen = \"127.0.0.1:9820\" is TCP, and the mode and group are "
            "a unix socket's; remove it");
  e = access_error("[daemon]\nlisten = \"127.0.0.1:9820\"\nsocket_group = \"0\"\n");
  EXPECT_TRUE(has(e, "daemon.socket_group has no effect")) << e;
  // The defaults, as --check-config prints them, are fine anywhere.
  EXPECT_EQ(access_error("[daemon]\nlisten = \"127.0.0.1:9820\"\nsocket_mode = \"0600\"\nsocket_group = \"\"\n"), "");
  auto c = parse_config("[daemon]\nsocket_mode = 0o660\nsocket_group = \"0\"\n", "a.toml");
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->finalize().ok());
  auto again = parse_config(cuzk::engine::config_to_toml(*c), "printed.toml");
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->daemon.socket_mode, 0660u);
  EXPECT_EQ(again->daemon.socket_group, "0");
}

TEST(ConfigAccess, AllowlistRules) {
  const std::string remote = "[daemon]\nlisten = \"0.0.0.0:9820\"\nallow_remote = true\n";
  EXPECT_EQ(access_error(remote + "allow_unauthenticated_from = [\"10.0.0.0/8\", \"192.168.1.7\", \"fd00::/8\"]\n"),
            "");
  // Loopback needs no allow_remote; a remote address still does.
  EXPECT_EQ(access_error("[daemon]\nlisten = \"127.0.0.1:9820\"\nallow_unauthenticated_from = [\"127.0.0.2\"]\n"), "");
  std::string e = access_error("[daemon]\nlisten = \"0.0.0.0:9820\"\nallow_unauthenticated_from = [\"10.0.0.0/8\"]\n");
  EXPECT_TRUE(has(e, "set daemon.allow_remote = true")) << e;
  // A malformed entry, named by its index.
  e = access_error(remote + "allow_unauthenticated_from = [\"10.0.0.0/8\", \"192.168.1.7/32\", \"10.0.0.0/33\"]\n");
  EXPECT_EQ(e,
            "daemon.allow_unauthenticated_from[2]: \"10.0.0.0/33\" is not a network: the prefix length 33 is more "
            "than 32 (IPv4)");
  e = access_error(remote + "allow_unauthenticated_from = \"10.0.0.0/8\"\n");
  EXPECT_TRUE(has(e, "daemon.allow_unauthenticated_from: expected an array of strings, got a string")) << e;
  // Not on a unix socket, not with TLS, not with a token.
  e = access_error("[daemon]\nallow_unauthenticated_from = [\"10.0.0.0/8\"]\n");
  EXPECT_TRUE(has(e, "is a unix socket; the allowlist is for TCP listeners")) << e;
  e = access_error(remote +
                   "allow_unauthenticated_from = [\"10.0.0.0/8\"]\ntls_cert = \"/c.pem\"\ntls_key = \"/k.pem\"\n");
  EXPECT_TRUE(has(e,
                  "daemon.allow_unauthenticated_from and daemon.tls_cert are both set; a listener is either TLS "
                  "or plaintext"))
      << e;
  e = access_error(remote + "allow_unauthenticated_from = [\"10.0.0.0/8\"]\nauth_token_file = \"/t\"\n");
  EXPECT_TRUE(has(e, "daemon.allow_unauthenticated_from and daemon.auth_token_file are both set")) << e;
  EXPECT_TRUE(has(e, "the token would be checked nowhere")) << e;
  // Without the key nothing changes: remote still needs TLS or a token, and says how else.
  e = access_error(remote);
  EXPECT_TRUE(has(e, "without authentication")) << e;
  EXPECT_TRUE(has(e, "daemon.allow_unauthenticated_from")) << e;
  // An empty list is no list.
  EXPECT_EQ(access_error("[daemon]\nallow_unauthenticated_from = []\n"), "");
  // --check-config prints it so that it loads back.
  auto c = parse_config(remote + "allow_unauthenticated_from = [\"10.0.0.0/8\", \"fd00::/8\"]\n", "a.toml");
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE(c->finalize().ok());
  auto again = parse_config(cuzk::engine::config_to_toml(*c), "printed.toml");
  ASSERT_TRUE(again.ok()) << again.error();
  ASSERT_TRUE(again->finalize().ok());
  EXPECT_EQ(again->daemon.allow_unauthenticated_from, (std::vector<std::string>{"10.0.0.0/8", "fd00::/8"}));
}

}  // namespace config_access_test
