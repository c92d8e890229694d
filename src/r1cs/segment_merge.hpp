#pragma once
// Recording a circuit in parallel: a circuit made of a head and k structurally identical blocks
// (the PoRep partition: its top part, then one sub-circuit per challenge) is recorded as k + 1
// segments, each by its own RecordingCS (take_raw), every block as if it were the first: numbered
// from the head's end (inputs_base, aux_base). Merging shifts block j's own variables (those at or
// above the bases) by j times the block's size, re-interns the coefficients and resolves the aux
// tags, which gives exactly the matrices a single sequential RecordingCS would record. Blocks must
// allocate the same numbers of inputs and aux (checked). merge_placed is the general form: any
// segments, each with its own column shifts (SnapDeals: the apex PoR recorded beside the challenges).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "r1cs/recording_cs.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::r1cs {

// Where one recorded segment's columns go in the merged circuit: its inputs at or above in_from
// move by in_shift; its aux at or above aux_from[1] by aux_shift[1], else at or above aux_from[0]
// by aux_shift[0] (two ranges: a segment may read variables of an earlier segment that itself
// moves, besides its own).
struct SegmentPlace {
  uint64_t in_from = UINT64_MAX, in_shift = 0;
  uint64_t aux_from[2] = {UINT64_MAX, UINT64_MAX}, aux_shift[2] = {0, 0};
};

// The segments' rows in order, columns moved as `places` say, coefficients re-interned (in segment
// order, the order a sequential recording meets them) and aux tags resolved; num_inputs/num_aux:
// the merged circuit's. shared: a segment may appear more than once (not freed until the end).
// finalize appends the Groth16 input constraints (RecordingCS::finalize).
inline CompactR1cs merge_placed(std::vector<CompactR1cs*> segs, const std::vector<SegmentPlace>& places,
                                size_t num_inputs, size_t num_aux, bool finalize, ThreadPool* pool, bool shared) {
  constexpr uint32_t kTag = RecordingCS::AUX_TAG;
  if (segs.size() != places.size()) throw std::logic_error("merge_placed: one place per segment");
  CompactR1cs out;
  out.num_inputs = num_inputs;
  out.num_aux = num_aux;
  if (out.num_inputs + out.num_aux > 0xFFFFFFFFull || out.num_aux >= kTag) {
    throw std::length_error("merge_segments: more than 2^32 columns");
  }
  // Where each segment's rows and non-zeros land, so the segments are copied concurrently.
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
  // One coefficient table: each segment's indices remapped (few distinct values).
  CoeffInterner interner;
  std::vector<std::vector<uint32_t>> remap(n);
  for (size_t j = 0; j < n; ++j) {
    for (const Fr& v : segs[j]->coeffs) remap[j].push_back(interner.intern(v));
  }
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
    const SegmentPlace& pl = places[j];
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
          if (a >= pl.aux_from[1]) {
            a += pl.aux_shift[1];
          } else if (a >= pl.aux_from[0]) {
            a += pl.aux_shift[0];
          }
          c = out.num_inputs + a;
        } else {
          c = col >= pl.in_from ? col + pl.in_shift : col;
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
    if (!shared && parts_left[j].fetch_sub(1, std::memory_order_acq_rel) == 1) {
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

// head: the first segment (numbered from ONE); blocks: each recorded by RecordingCS(head inputs,
// head aux). finalize appends the Groth16 input constraints (RecordingCS::finalize).
//
// copies > 0 (with exactly one block): the block stands for `copies` identical blocks (the blank
// PoRep circuit's challenges do not depend on the challenge index), each renumbered as above.
inline CompactR1cs merge_segments(CompactR1cs head, std::vector<CompactR1cs> blocks, bool finalize,
                                  ThreadPool* pool = nullptr, size_t copies = 0) {
  if (copies != 0 && blocks.size() != 1) throw std::logic_error("merge_segments: copies needs exactly one block");
  const size_t num_blocks = copies != 0 ? copies : blocks.size();
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
  std::vector<CompactR1cs*> segs{&head};
  std::vector<SegmentPlace> places(1);
  for (size_t j = 0; j < num_blocks; ++j) {
    segs.push_back(&blocks[copies != 0 ? 0 : j]);
    SegmentPlace& pl = places.emplace_back();
    pl.in_from = in_base;
    pl.in_shift = j * block_in;
    pl.aux_from[0] = pl.aux_from[1] = aux_base;
    pl.aux_shift[0] = pl.aux_shift[1] = j * block_aux;
  }
  return merge_placed(std::move(segs), places, in_base + num_blocks * block_in, aux_base + num_blocks * block_aux,
                      finalize, pool, copies > 1);
}

}  // namespace cuzk::r1cs
