#pragma once
// The error every C1 input problem is reported with: the JSON path of the offending field (jq
// style, e.g. `vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data.Single.path.path[5].hashes`)
// and what is wrong with it.
#include <stdexcept>
#include <string>
#include <utility>

#include "util/lifetimebound.hpp"

namespace cuzk::filecoin {

class C1Error : public std::runtime_error {
 public:
  C1Error(std::string path, std::string problem)
      : std::runtime_error((path.empty() ? std::string("(document)") : path) + ": " + problem),
        path_(std::move(path)),
        problem_(std::move(problem)) {}
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_;
  std::string problem_;
};

// A JSON path built on the stack while descending, turned into text only when an error needs it
// (a 32 GiB C1 file has ~300k nodes; naming each eagerly would cost more than parsing it).
class JsonPath {
 public:
  JsonPath() = default;
  JsonPath(const JsonPath* parent, const char* key) : parent_(parent), key_(key) {}
  JsonPath(const JsonPath* parent, size_t index) : parent_(parent), index_(index) {}

  // A child points at its parent: chaining on a temporary (`p.field("a").field("b").fail(...)`) is
  // fine within one expression, but a path kept in a variable must extend a named path (clang
  // reports the other case: CUZK_LIFETIMEBOUND).
  JsonPath field(const char* key) const CUZK_LIFETIMEBOUND { return JsonPath(this, key); }
  JsonPath at(size_t index) const CUZK_LIFETIMEBOUND { return JsonPath(this, index); }

  std::string str() const {
    std::string s = parent_ ? parent_->str() : std::string();
    if (key_) {
      if (!s.empty()) s += '.';
      s += key_;
    } else if (parent_) {
      s += '[' + std::to_string(index_) + ']';
    }
    return s;
  }
  [[noreturn]] void fail(const std::string& problem) const { throw C1Error(str(), problem); }

 private:
  const JsonPath* parent_ = nullptr;
  const char* key_ = nullptr;
  size_t index_ = 0;
};

}  // namespace cuzk::filecoin
