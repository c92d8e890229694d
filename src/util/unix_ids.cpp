#include "util/unix_ids.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace cuzk {
namespace {

// Calls a *_r lookup with a buffer that grows while it says ERANGE.
template <class Entry, class Lookup>
bool lookup(Entry& entry, std::vector<char>& buf, Lookup&& call) {
  buf.resize(1024);
  for (;;) {
    Entry* found = nullptr;
    const int rc = call(&entry, buf.data(), buf.size(), &found);
    if (rc == ERANGE && buf.size() < (1u << 20)) {
      buf.resize(buf.size() * 2);
      continue;
    }
    return rc == 0 && found != nullptr;
  }
}

GroupInfo to_info(const group& g) {
  GroupInfo out{g.gr_gid, g.gr_name, {}};
  for (char** m = g.gr_mem; m != nullptr && *m != nullptr; ++m) out.members.emplace_back(*m);
  return out;
}

}  // namespace

std::optional<GroupInfo> group_by_gid(gid_t gid) {
  group g{};
  std::vector<char> buf;
  if (!lookup(g, buf, [gid](group* e, char* b, size_t n, group** r) { return ::getgrgid_r(gid, e, b, n, r); })) {
    return std::nullopt;
  }
  return to_info(g);
}

Result<GroupInfo> lookup_group(const std::string& name_or_gid) {
  if (name_or_gid.empty()) return make_error("an empty group name");
  unsigned long gid = 0;
  const char* begin = name_or_gid.data();
  const char* end = begin + name_or_gid.size();
  const auto [ptr, ec] = std::from_chars(begin, end, gid);
  if (ec == std::errc{} && ptr == end) {
    if (gid >= 0xffffffffUL) return make_error("gid " + name_or_gid + " is out of range (0..4294967294)");
    if (auto known = group_by_gid(static_cast<gid_t>(gid))) return *known;
    return GroupInfo{static_cast<gid_t>(gid), "", {}};
  }
  group g{};
  std::vector<char> buf;
  const std::string name = name_or_gid;
  if (!lookup(g, buf,
              [&name](group* e, char* b, size_t n, group** r) { return ::getgrnam_r(name.c_str(), e, b, n, r); })) {
    return make_error("no group named '" + name + "' on this host (getent group " + name + ")");
  }
  return to_info(g);
}

std::string group_label(gid_t gid) {
  const auto g = group_by_gid(gid);
  return g ? g->name + " (gid " + std::to_string(gid) + ")" : "gid " + std::to_string(gid);
}

std::string user_label(uid_t uid) {
  passwd p{};
  std::vector<char> buf;
  if (!lookup(p, buf, [uid](passwd* e, char* b, size_t n, passwd** r) { return ::getpwuid_r(uid, e, b, n, r); })) {
    return "uid " + std::to_string(uid);
  }
  return p.pw_name;
}

bool may_use_group(gid_t gid) {
  if (::geteuid() == 0 || ::getegid() == gid) return true;
  const int n = ::getgroups(0, nullptr);
  if (n <= 0) return false;
  std::vector<gid_t> groups(static_cast<size_t>(n));
  const int got = ::getgroups(n, groups.data());
  for (int i = 0; i < got; ++i) {
    if (groups[static_cast<size_t>(i)] == gid) return true;
  }
  return false;
}

}  // namespace cuzk
