// The CIDR parser and matcher behind daemon.allow_unauthenticated_from (util/cidr.hpp).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <string>
#include <vector>

#include "util/cidr.hpp"

namespace cidr_test {

using cuzk::IpNetworkList;
using cuzk::parse_ip_network;

std::string canonical(const std::string& text) {
  auto n = parse_ip_network(text);
  return n ? n->text() : "error: " + n.error();
}

sockaddr_in v4(const char* a) {
  sockaddr_in s{};
  s.sin_family = AF_INET;
  EXPECT_EQ(::inet_pton(AF_INET, a, &s.sin_addr), 1) << a;
  return s;
}

sockaddr_in6 v6(const char* a) {
  sockaddr_in6 s{};
  s.sin6_family = AF_INET6;
  EXPECT_EQ(::inet_pton(AF_INET6, a, &s.sin6_addr), 1) << a;
  return s;
}

// Whether `peer` matches `list` (entries that must parse).
template <class Addr>
bool matches(const std::vector<std::string>& list, const Addr& peer) {
  auto l = IpNetworkList::parse(list, "t");
  EXPECT_TRUE(l.ok()) << l.error();
  return l.ok() && l->contains(reinterpret_cast<const sockaddr*>(&peer), sizeof peer);
}

TEST(Cidr, ParsesNetworksAndBareAddresses) {
  EXPECT_EQ(canonical("10.0.0.0/8"), "10.0.0.0/8");
  EXPECT_EQ(canonical("192.168.1.7/32"), "192.168.1.7/32");
  EXPECT_EQ(canonical("192.168.1.7"), "192.168.1.7/32");
  EXPECT_EQ(canonical("0.0.0.0/0"), "0.0.0.0/0");
  EXPECT_EQ(canonical("fd00::/8"), "fd00::/8");
  EXPECT_EQ(canonical("FD00:0:0::/8"), "fd00::/8");
  EXPECT_EQ(canonical("2001:db8::1"), "2001:db8::1/128");
  EXPECT_EQ(canonical("::/0"), "::/0");
  EXPECT_EQ(canonical("::ffff:10.0.0.0/104"), "::ffff:10.0.0.0/104");
  EXPECT_EQ(canonical("10.1.2.3/32"), "10.1.2.3/32");
  EXPECT_EQ(canonical("10.1.2.0/23"), "10.1.2.0/23");
  EXPECT_EQ(canonical("10.1.3.0/23"), "error: host bits are set below the /23 prefix; did you mean 10.1.2.0/23?");
}

TEST(Cidr, RefusesMalformedEntriesSayingWhy) {
  EXPECT_EQ(canonical("10.0.0.0/33"), "error: the prefix length 33 is more than 32 (IPv4)");
  EXPECT_EQ(canonical("::/129"), "error: the prefix length 129 is more than 128 (IPv6)");
  EXPECT_EQ(canonical("10.0.0.0/"), "error: the prefix length '' is not a number");
  EXPECT_EQ(canonical("10.0.0.0/-1"), "error: the prefix length '-1' is not a number");
  EXPECT_EQ(canonical("10.0.0.0/8/8"), "error: the prefix length '8/8' is not a number");
  EXPECT_EQ(canonical("10.0.0.0/ 8"), "error: the prefix length ' 8' is not a number");
  EXPECT_EQ(canonical("10.1.0.0/8"), "error: host bits are set below the /8 prefix; did you mean 10.0.0.0/8?");
  EXPECT_EQ(canonical("fd00::1/8"), "error: host bits are set below the /8 prefix; did you mean fd00::/8?");
  for (const char* bad : {"", "10.0.0", "10.0.0.256", "256.0.0.0/8", "010.0.0.1", "host.example", "fe80::1%eth0",
                          "1.2.3.4.5", " 10.0.0.0/8"}) {
    EXPECT_EQ(canonical(bad).rfind("error: '", 0), 0u) << bad << ": " << canonical(bad);
  }
  // The list names the entry by its index.
  auto l = IpNetworkList::parse({"10.0.0.0/8", "192.168.1.7/32", "10.0.0.0/33"}, "daemon.allow_unauthenticated_from");
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error(),
            "daemon.allow_unauthenticated_from[2]: \"10.0.0.0/33\" is not a network: the prefix length 33 is more "
            "than 32 (IPv4)");
}

TEST(Cidr, MatchesIpv4AtThePrefixEdges) {
  EXPECT_TRUE(matches({"10.0.0.0/8"}, v4("10.0.0.0")));
  EXPECT_TRUE(matches({"10.0.0.0/8"}, v4("10.255.255.255")));
  EXPECT_FALSE(matches({"10.0.0.0/8"}, v4("11.0.0.0")));
  EXPECT_FALSE(matches({"10.0.0.0/8"}, v4("9.255.255.255")));
  EXPECT_TRUE(matches({"192.168.1.7"}, v4("192.168.1.7")));
  EXPECT_FALSE(matches({"192.168.1.7/32"}, v4("192.168.1.6")));
  EXPECT_FALSE(matches({"192.168.1.7/32"}, v4("192.168.1.8")));
  EXPECT_TRUE(matches({"172.16.0.0/12"}, v4("172.31.255.255")));
  EXPECT_FALSE(matches({"172.16.0.0/12"}, v4("172.32.0.0")));
  EXPECT_TRUE(matches({"0.0.0.0/0"}, v4("203.0.113.9")));
  EXPECT_FALSE(matches({"0.0.0.0/0"}, v6("2001:db8::1"))) << "an IPv4 network holds no IPv6 address";
  EXPECT_FALSE(matches({}, v4("127.0.0.1")));
  EXPECT_TRUE(matches({"10.0.0.0/8", "127.0.0.2/32"}, v4("127.0.0.2")));
}

TEST(Cidr, MatchesIpv6AndMappedIpv4) {
  EXPECT_TRUE(matches({"fd00::/8"}, v6("fd12:3456::1")));
  EXPECT_FALSE(matches({"fd00::/8"}, v6("fe00::1")));
  EXPECT_TRUE(matches({"2001:db8::1/128"}, v6("2001:db8::1")));
  EXPECT_FALSE(matches({"2001:db8::1/128"}, v6("2001:db8::2")));
  EXPECT_TRUE(matches({"2001:db8::/127"}, v6("2001:db8::1")));
  EXPECT_TRUE(matches({"::/0"}, v6("2001:db8::1")));
  EXPECT_FALSE(matches({"::/0"}, v4("10.1.2.3"))) << "an IPv6 network holds no IPv4 peer";
  // A dual-stack listener reports IPv4 clients as ::ffff:a.b.c.d: they match the IPv4 entries.
  EXPECT_TRUE(matches({"10.0.0.0/8"}, v6("::ffff:10.1.2.3")));
  EXPECT_FALSE(matches({"10.0.0.0/8"}, v6("::ffff:11.1.2.3")));
  EXPECT_TRUE(matches({"0.0.0.0/0"}, v6("::ffff:203.0.113.9")));
  EXPECT_TRUE(matches({"::ffff:10.0.0.0/104"}, v6("::ffff:10.9.9.9")));
  EXPECT_FALSE(matches({"10.0.0.0/8"}, v6("::10.1.2.3"))) << "IPv4-compatible (deprecated) is not mapped";
  // Other families and short lengths never match.
  sockaddr unix_peer{};
  unix_peer.sa_family = AF_UNIX;
  auto l = IpNetworkList::parse({"0.0.0.0/0", "::/0"}, "t");
  ASSERT_TRUE(l.ok());
  EXPECT_FALSE(l->contains(&unix_peer, sizeof unix_peer));
  const auto peer = v4("10.0.0.1");
  EXPECT_FALSE(l->contains(reinterpret_cast<const sockaddr*>(&peer), 4));
}

TEST(Cidr, PeerAddressText) {
  const auto a = v4("10.1.2.3");
  EXPECT_EQ(cuzk::peer_address_text(reinterpret_cast<const sockaddr*>(&a), sizeof a), "10.1.2.3");
  const auto b = v6("::ffff:10.1.2.3");
  EXPECT_EQ(cuzk::peer_address_text(reinterpret_cast<const sockaddr*>(&b), sizeof b), "10.1.2.3");
  const auto c = v6("2001:db8::1");
  EXPECT_EQ(cuzk::peer_address_text(reinterpret_cast<const sockaddr*>(&c), sizeof c), "2001:db8::1");
}

}  // namespace cidr_test
