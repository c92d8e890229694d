#pragma once
// Users and groups of this host, by name or numeric id (the daemon's socket_group, `cuzk doctor`).
// Reentrant lookups (getgrnam_r and friends): the daemon may look up while other threads run.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace cuzk {

struct GroupInfo {
  gid_t gid = 0;
  std::string name;                  // empty for a numeric gid the group database does not know
  std::vector<std::string> members;  // its supplementary members (users whose primary group it is are not listed)
};

// "curio" or "1001". A name must exist; a number is accepted as a gid even without an entry (a
// file may belong to any gid), up to 4294967294.
Result<GroupInfo> lookup_group(const std::string& name_or_gid);
std::optional<GroupInfo> group_by_gid(gid_t gid);
// "curio (gid 1001)", "gid 1001" when the gid has no name.
std::string group_label(gid_t gid);
// "curio", or "uid 1001" when the uid has no name.
std::string user_label(uid_t uid);
// Whether this process may give a file to `gid`: root, or the group is its effective or a
// supplementary group.
bool may_use_group(gid_t gid);

}  // namespace cuzk
