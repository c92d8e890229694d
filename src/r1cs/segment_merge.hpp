#pragma once
// Recording a circuit in parallel: a circuit made of a head and k structurally identical blocks
// (the PoRep partition: its top part, then one sub-circuit per challenge) is recorded as k + 1
// segments, each by its own RecordingCS (take_raw), every block as if it were the first: numbered
// from the head's end (inputs_base, aux_base). Merging shifts block j's own variables (those at or
// above the bases) by j times the block's size, re-interns the coefficients and resolves the aux
// tags, which gives exactly the matrices a single sequential RecordingCS would record. Blocks must
// allocate the same numbers of inputs and aux (checked).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "r1cs/recording_cs.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::r1cs {

// head: the first segment (numbered from ONE); blocks: each recorded by RecordingCS(head inputs,
// head aux). finalize appends the Groth16 input constraints (RecordingCS::finalize).
//
// copies > 0 (with exactly one block): the block stands for `copies` identical blocks (the blank
// PoRep circuit's challenges do not depend on the challenge index), each renumbered as above.
inline CompactR1cs merge_segments(CompactR1cs head, std::vector<CompactR1cs> blocks, bool finalize,
                                  ThreadPool* pool = nullptr, size_t copies = 0) {
  if (copies != 0 && blocks.size() != 1) throw std::logic_error("merge_segments: copies needs exactly one block");
  const size_t num_blocks = copies != 0 ? copies : blocks.size();
  constexpr uint32_t kTag = RecordingCS::AUX_TAG;
  const size_t in_base = head.num_inputs, aux_base = head.num_aux;
  const size_t block_in = blocks.empty() ? 0 : blocks[0].num_inputs - in_base;
  const size_t block_aux = blocks.empty() ? 0 : blocks[0].num_aux - aux_base;
  for (size_t j = 0; j < blocks.size(); ++j) {
    if (blocks[j].num_inputs - in_base != block_in || blocks[j].num_aux - aux_base != block_aux) {
      throw std::logic_error("merge_segments: block " + std::to_string(j) + " allocates " +
                             std::to_string(blocks[j].num_inputs - in_base) + " inputs and " +
                             std::to_string(blocks[j].num_aux - aux_base) + " aux, block 0 " +
                             std::to_string(block_in) + " and " + std::to_string(block_aux));
    }
  }
  CompactR1cs out;
  out.num_inputs = in_base + num_blocks * block_in;
  out.num_aux = aux_base + num_blocks * block_aux;
  if (out.num_inputs + out.num_aux > 0xFFFFFFFFull || out.num_aux >= kTag) {
    throw std::length_error("merge_segments: more than 2^32 columns");
  }
  // Where each segment's rows and non-zeros land, so the segments are copied concurrently.
  std::vector<CompactR1cs*> segs{&head};
  for (size_t j = 0; j < num_blocks; ++j) segs.push_back(&blocks[copies != 0 ? 0 : j]);
  const size_t n = segs.size();
  std::vector<uint64_t> row_off(n + 1, 0);
  std::vector<uint64_t> nnz_off[3] = {std::vector<uint64_t>(n + 1, 0), std::vector<uint64_t>(n + 1, 0),
                                      std::vector<uint64_t>(n + 1, 0)};
  for (size_t j = 0; j < n; ++j) {
    row_off[j + 1] = row_off[j] + segs[j]->num_constraints;
    nnz_off[0][j + 1] = nnz_off[0][j] + segs[j]->a.nnz();
    nnz_off[1][j + 1] = nnz_off[1][j] + segs[j]->b.nnz();
    nnz_off[2][j + 1] = nnz_off[2][j] + segs[j]->c.nnz();
  }
  const size_t extra_rows = finalize ? out.num_inputs : 0;
  CompactMatrix* dst[3] = {&out.a, &out.b, &out.c};
  for (int m = 0; m < 3; ++m) {
    const uint64_t total = nnz_off[m][n] + (m == 0 ? extra_rows : 0);
    // Not zeroed (UninitVector): every entry is written below, by the parallel copy.
    dst[m]->row_ptr.resize(row_off[n] + extra_rows + 1);
    dst[m]->row_ptr[0] = 0;
    dst[m]->col.resize(total);
    dst[m]->coeff.resize(total);
  }
  // One coefficient table: each segment's indices remapped (few distinct values, interned in
  // segment order, which is the order a sequential recording meets them).
  CoeffInterner interner;
  std::vector<std::vector<uint32_t>> remap(n);
  for (size_t j = 0; j < n; ++j) {
    for (const Fr& v : segs[j]->coeffs) remap[j].push_back(interner.intern(v));
  }
  const bool shared_block = copies > 1;  // its rows are read by every copy: freed at the end
  // Every segment is copied in `parts` slices (of its non-zeros and of its rows), so that the pool
  // has work for all its threads even when there are fewer segments than threads (32 GiB PoRep:
  // 1 + 18); the copy is the first touch of the destination pages.
  const size_t threads = pool != nullptr ? pool->size() : 1;
  const size_t parts = threads > 1 ? std::max<size_t>(1, (4 * threads + n - 1) / n) : 1;
  std::vector<std::atomic<size_t>> parts_left(n);
  for (auto& p : parts_left) p.store(parts, std::memory_order_relaxed);
  auto copy_part = [&](size_t job) {
    const size_t j = job / parts, p = job % parts;
    CompactR1cs& seg = *segs[j];
    const bool is_block = j > 0;
    const uint64_t in_shift = is_block ? (j - 1) * block_in : 0, aux_shift = is_block ? (j - 1) * block_aux : 0;
    const CompactMatrix* src[3] = {&seg.a, &seg.b, &seg.c};
    const std::vector<uint32_t>& rm = remap[j];
    for (int m = 0; m < 3; ++m) {
      CompactMatrix& d = *dst[m];
      const uint64_t base = nnz_off[m][j];
      const uint32_t* cols = src[m]->col.data();
      const uint32_t* coeffs = src[m]->coeff.data();
      uint32_t* dcol = d.col.data() + base;
      uint32_t* dcoeff = d.coeff.data() + base;
      const size_t len = src[m]->col.size();
      for (size_t k = len * p / parts, k1 = len * (p + 1) / parts; k < k1; ++k) {
        const uint32_t col = cols[k];
        uint64_t c;
        if (col & kTag) {
          uint64_t a = col & ~kTag;
          if (a >= aux_base) a += aux_shift;
          c = out.num_inputs + a;
        } else {
          c = col >= in_base ? col + in_shift : col;
        }
        dcol[k] = static_cast<uint32_t>(c);
        dcoeff[k] = rm[coeffs[k]];
      }
      const size_t rows = src[m]->row_ptr.size() - 1;
      const uint64_t* rp = src[m]->row_ptr.data();
      uint64_t* drp = d.row_ptr.data() + row_off[j];
      for (size_t r = 1 + rows * p / parts, r1 = 1 + rows * (p + 1) / parts; r < r1; ++r) drp[r] = base + rp[r];
    }
    // The segment's last slice frees it (free as we go).
    if (!shared_block && parts_left[j].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      seg.a = {};
      seg.b = {};
      seg.c = {};
    }
  };
  if (pool != nullptr) {
    pool->parallel_for(n * parts, copy_part);
  } else {
    for (size_t job = 0; job < n * parts; ++job) copy_part(job);
  }
  out.num_constraints = row_off[n];
  if (finalize) {
    for (size_t i = 0; i < out.num_inputs; ++i) {
      const uint64_t row = row_off[n] + i + 1, k = nnz_off[0][n] + i;
      out.a.col[k] = static_cast<uint32_t>(i);
      out.a.coeff[k] = 0;  // +1
      out.a.row_ptr[row] = k + 1;
      out.b.row_ptr[row] = nnz_off[1][n];
      out.c.row_ptr[row] = nnz_off[2][n];
    }
    out.num_constraints += out.num_inputs;
  }
  out.coeffs = std::move(interner).take();
  return out;
}

}  // namespace cuzk::r1cs
