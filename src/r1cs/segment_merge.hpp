#pragma once
// Recording a circuit in parallel: a circuit made of a head and k structurally identical blocks
// (the PoRep partition: its top part, then one sub-circuit per challenge) is recorded as k + 1
// segments, each by its own RecordingCS (take_raw), every block as if it were the first: numbered
// from the head's end (inputs_base, aux_base). Merging shifts block j's own variables (those at or
// above the bases) by j times the block's size, re-interns the coefficients and resolves the aux
// tags, which gives exactly the matrices a single sequential RecordingCS would record. Blocks must
// allocate the same numbers of inputs and aux (checked).
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "r1cs/recording_cs.hpp"

namespace cuzk::r1cs {

// head: the first segment (numbered from ONE); blocks: each recorded by RecordingCS(head inputs,
// head aux). finalize appends the Groth16 input constraints (RecordingCS::finalize).
inline CompactR1cs merge_segments(CompactR1cs head, std::vector<CompactR1cs> blocks, bool finalize) {
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
  out.num_inputs = in_base + blocks.size() * block_in;
  out.num_aux = aux_base + blocks.size() * block_aux;
  if (out.num_inputs + out.num_aux > 0xFFFFFFFFull || out.num_aux >= kTag) {
    throw std::length_error("merge_segments: more than 2^32 columns");
  }
  CoeffInterner interner;
  size_t total_rows = head.num_constraints, nnz[3] = {head.a.nnz(), head.b.nnz(), head.c.nnz()};
  for (const CompactR1cs& b : blocks) {
    total_rows += b.num_constraints;
    nnz[0] += b.a.nnz();
    nnz[1] += b.b.nnz();
    nnz[2] += b.c.nnz();
  }
  if (finalize) {
    total_rows += out.num_inputs;
    nnz[0] += out.num_inputs;
  }
  CompactMatrix* dst[3] = {&out.a, &out.b, &out.c};
  for (int m = 0; m < 3; ++m) {
    dst[m]->row_ptr.reserve(total_rows + 1);
    dst[m]->col.reserve(nnz[m]);
    dst[m]->coeff.reserve(nnz[m]);
  }
  auto append = [&](CompactR1cs& seg, size_t j, bool is_block) {
    std::vector<uint32_t> remap(seg.coeffs.size());
    for (size_t k = 0; k < seg.coeffs.size(); ++k) remap[k] = interner.intern(seg.coeffs[k]);
    const uint64_t in_shift = is_block ? j * block_in : 0, aux_shift = is_block ? j * block_aux : 0;
    CompactMatrix* src[3] = {&seg.a, &seg.b, &seg.c};
    for (int m = 0; m < 3; ++m) {
      CompactMatrix& d = *dst[m];
      const uint64_t base = d.col.size();
      for (uint32_t col : src[m]->col) {
        uint64_t c;
        if (col & kTag) {
          uint64_t a = col & ~kTag;
          if (a >= aux_base) a += aux_shift;
          c = out.num_inputs + a;
        } else {
          c = col >= in_base ? col + in_shift : col;
        }
        d.col.push_back(static_cast<uint32_t>(c));
      }
      for (uint32_t k : src[m]->coeff) d.coeff.push_back(remap[k]);
      for (size_t r = 1; r < src[m]->row_ptr.size(); ++r) d.row_ptr.push_back(base + src[m]->row_ptr[r]);
      *src[m] = {};  // free as we go
    }
    out.num_constraints += seg.num_constraints;
  };
  append(head, 0, false);
  for (size_t j = 0; j < blocks.size(); ++j) append(blocks[j], j, true);
  if (finalize) {
    for (size_t i = 0; i < out.num_inputs; ++i) {
      out.a.col.push_back(static_cast<uint32_t>(i));
      out.a.coeff.push_back(0);  // +1
      out.a.row_ptr.push_back(out.a.col.size());
      out.b.row_ptr.push_back(out.b.col.size());
      out.c.row_ptr.push_back(out.c.col.size());
    }
    out.num_constraints += out.num_inputs;
  }
  out.coeffs = std::move(interner).take();
  return out;
}

}  // namespace cuzk::r1cs
