#pragma once
// Large vectors filled by many threads: the kernel's page faults, not the zeroing, dominate a
// vector's value-initialisation (a 4 GB witness: 2.6 s on one thread of the CI VM), so the pages
// are faulted in by the pool first and resize() then only zeroes memory that is already there.
#include <cstddef>
#include <vector>

#include "util/mapped_file.hpp"
#include "util/thread_pool.hpp"

namespace cuzk {

// v.resize(n) for an empty v, the new storage's pages faulted in by `pool` (in huge pages where the
// kernel allows them). The bytes written before resize() are only touches of storage that the
// vector owns and has not yet constructed objects in; resize() value-initialises every element.
template <class T>
void resize_prefaulted(std::vector<T>& v, size_t n, ThreadPool& pool) {
  constexpr size_t kPage = 4096;
  if (!v.empty() || n * sizeof(T) < (size_t{64} << 20)) {
    v.resize(n);
    return;
  }
  v.reserve(n);
  char* base = reinterpret_cast<char*>(v.data());
  const size_t bytes = n * sizeof(T);
  advise_huge_pages(base, bytes);
  pool.parallel_chunks(bytes / kPage, 1024, [&](size_t b, size_t e) {
    for (size_t p = b; p < e; ++p) *static_cast<volatile char*>(base + p * kPage) = 0;
  });
  v.resize(n);
}

}  // namespace cuzk
