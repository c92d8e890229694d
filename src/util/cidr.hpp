#pragma once
// IP networks in CIDR notation ("10.0.0.0/8", "fd00::/8"; a bare address is a /32 or /128) and a
// list of them that tells whether a peer's socket address belongs to one. An IPv4-mapped IPv6 peer
// ("::ffff:10.1.2.3", what a dual-stack listener reports for an IPv4 client) matches the IPv4
// entries as its IPv4 address, and the IPv6 entries as itself.
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace cuzk {

struct IpNetwork {
  bool v4 = false;
  std::array<uint8_t, 16> address{};  // network address; IPv4 in the first 4 bytes
  unsigned prefix = 0;                // 0..32 (IPv4) or 0..128 (IPv6)

  // Canonical text: "10.0.0.0/8", "fd00::/8".
  std::string text() const;
  // Whether `bytes` (4 for IPv4, 16 for IPv6, of the same family as this network) lies inside.
  bool contains(const uint8_t* bytes, bool is_v4) const;
};

// Parses "a.b.c.d[/n]" or "ipv6[/n]". Errors say what is wrong: no address, a prefix length out
// of range or not a number, host bits set below the prefix ("10.1.0.0/8": did you mean 10.0.0.0/8?).
Result<IpNetwork> parse_ip_network(std::string_view text);

class IpNetworkList {
 public:
  IpNetworkList() = default;
  explicit IpNetworkList(std::vector<IpNetwork> networks) : networks_(std::move(networks)) {}
  // Parses every entry; the first bad one is an error "<what>[i]: \"text\" is not a network: ...".
  static Result<IpNetworkList> parse(const std::vector<std::string>& entries, std::string_view what);

  bool empty() const { return networks_.empty(); }
  const std::vector<IpNetwork>& networks() const { return networks_; }
  // An AF_INET or AF_INET6 peer inside one of the networks; any other family: false.
  bool contains(const sockaddr* peer, socklen_t length) const;

 private:
  std::vector<IpNetwork> networks_;
};

// "10.1.2.3", "fd00::1" ("?" for a family other than AF_INET and AF_INET6): the address of a peer,
// without its port, IPv4-mapped IPv6 addresses shown as IPv4.
std::string peer_address_text(const sockaddr* peer, socklen_t length);

}  // namespace cuzk
