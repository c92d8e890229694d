#pragma once
// UninitVector<T>: a std::vector whose resize(n) and vector(n) leave new trivial elements
// default-initialised (indeterminate) instead of zeroing them. For the multi-GB arrays that are
// filled right after sizing (merged R1CS matrices, PCE sections): zeroing them first costs a
// single-threaded pass over memory that also takes every page fault on that one thread; left
// uninitialised, the parallel fill is the first touch. Everything else (push_back, assign(n, v),
// vector(n, v), insert) behaves as for std::vector.
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuzk {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;  // default-init: no zeroing for trivial types
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    std::allocator_traits<std::allocator<T>>::construct(static_cast<std::allocator<T>&>(*this), p,
                                                        std::forward<Args>(args)...);
  }
};

template <class T, class U>
bool operator==(const DefaultInitAllocator<T>&, const DefaultInitAllocator<U>&) noexcept {
  return true;
}

template <class T>
using UninitVector = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace cuzk
