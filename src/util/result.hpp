#pragma once
// A value or an error message a user can act on (std::expected is C++23; we target C++20).
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace cuzk {

struct Error {
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error e) : v_(std::move(e)) {}      // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return std::get<1>(v_).message; }

  // Throws std::runtime_error carrying the message when this holds an error.
  T& value() & {
    if (!ok()) throw std::runtime_error(error());
    return std::get<0>(v_);
  }
  const T& value() const& {
    if (!ok()) throw std::runtime_error(error());
    return std::get<0>(v_);
  }
  T&& value() && {
    if (!ok()) throw std::runtime_error(error());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(std::string msg) {
  return Error{std::move(msg)};
}

}  // namespace cuzk
