#include "util/cidr.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <cstring>

namespace cuzk {
namespace {

std::string address_text(const uint8_t* bytes, bool v4) {
  char buf[INET6_ADDRSTRLEN] = {};
  ::inet_ntop(v4 ? AF_INET : AF_INET6, bytes, buf, sizeof buf);
  return buf;
}

// The bits of `bytes` below `prefix` set to zero.
std::array<uint8_t, 16> masked(const std::array<uint8_t, 16>& bytes, unsigned prefix, unsigned total_bits) {
  std::array<uint8_t, 16> out{};
  for (unsigned bit = 0; bit < prefix && bit < total_bits; bit += 8) {
    const unsigned keep = prefix - bit >= 8 ? 8 : prefix - bit;
    out[bit / 8] = static_cast<uint8_t>(bytes[bit / 8] & (0xff00u >> keep));
  }
  return out;
}

// "::ffff:a.b.c.d": the IPv4 address a dual-stack socket reports for an IPv4 peer.
bool is_v4_mapped(const uint8_t* b) {
  static constexpr uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(b, kPrefix, sizeof kPrefix) == 0;
}

}  // namespace

std::string IpNetwork::text() const {
  return address_text(address.data(), v4) + "/" + std::to_string(prefix);
}

bool IpNetwork::contains(const uint8_t* bytes, bool is_v4) const {
  if (is_v4 != v4) return false;
  std::array<uint8_t, 16> peer{};
  std::memcpy(peer.data(), bytes, v4 ? 4 : 16);
  return masked(peer, prefix, v4 ? 32 : 128) == address;
}

Result<IpNetwork> parse_ip_network(std::string_view text) {
  const size_t slash = text.find('/');
  const std::string host(text.substr(0, slash));
  IpNetwork net;
  if (::inet_pton(AF_INET, host.c_str(), net.address.data()) == 1) {
    net.v4 = true;
  } else if (::inet_pton(AF_INET6, host.c_str(), net.address.data()) != 1) {
    return make_error("'" + host + "' is not an IPv4 or IPv6 address (expected e.g. 10.0.0.0/8 or fd00::/8)");
  }
  const unsigned bits = net.v4 ? 32 : 128;
  net.prefix = bits;
  if (slash != std::string_view::npos) {
    const std::string_view length = text.substr(slash + 1);
    unsigned n = 0;
    const auto [end, ec] = std::from_chars(length.data(), length.data() + length.size(), n);
    if (length.empty() || ec != std::errc{} || end != length.data() + length.size()) {
      return make_error("the prefix length '" + std::string(length) + "' is not a number");
    }
    if (n > bits) {
      return make_error("the prefix length " + std::to_string(n) + " is more than " + std::to_string(bits) + " (" +
                        (net.v4 ? "IPv4" : "IPv6") + ")");
    }
    net.prefix = n;
  }
  const auto network = masked(net.address, net.prefix, bits);
  if (network != net.address) {
    // A typo ("10.1.0.0/8") would admit far more than its author meant; say so rather than guess.
    return make_error("host bits are set below the /" + std::to_string(net.prefix) + " prefix; did you mean " +
                      address_text(network.data(), net.v4) + "/" + std::to_string(net.prefix) + "?");
  }
  return net;
}

Result<IpNetworkList> IpNetworkList::parse(const std::vector<std::string>& entries, std::string_view what) {
  std::vector<IpNetwork> out;
  for (size_t i = 0; i < entries.size(); ++i) {
    auto net = parse_ip_network(entries[i]);
    if (!net) {
      return make_error(std::string(what) + "[" + std::to_string(i) + "]: \"" + entries[i] +
                        "\" is not a network: " + net.error());
    }
    out.push_back(*net);
  }
  return IpNetworkList(std::move(out));
}

bool IpNetworkList::contains(const sockaddr* peer, socklen_t length) const {
  if (peer->sa_family == AF_INET && length >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    const auto* a = reinterpret_cast<const uint8_t*>(&reinterpret_cast<const sockaddr_in*>(peer)->sin_addr);
    for (const auto& n : networks_) {
      if (n.contains(a, true)) return true;
    }
    return false;
  }
  if (peer->sa_family != AF_INET6 || length < static_cast<socklen_t>(sizeof(sockaddr_in6))) return false;
  const auto* a = reinterpret_cast<const uint8_t*>(&reinterpret_cast<const sockaddr_in6*>(peer)->sin6_addr);
  const bool mapped = is_v4_mapped(a);
  for (const auto& n : networks_) {
    if (n.contains(a, false) || (mapped && n.contains(a + 12, true))) return true;
  }
  return false;
}

std::string peer_address_text(const sockaddr* peer, socklen_t length) {
  if (peer->sa_family == AF_INET && length >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    return address_text(reinterpret_cast<const uint8_t*>(&reinterpret_cast<const sockaddr_in*>(peer)->sin_addr), true);
  }
  if (peer->sa_family == AF_INET6 && length >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
    const auto* a = reinterpret_cast<const uint8_t*>(&reinterpret_cast<const sockaddr_in6*>(peer)->sin6_addr);
    return is_v4_mapped(a) ? address_text(a + 12, true) : address_text(a, false);
  }
  return "?";
}

}  // namespace cuzk
