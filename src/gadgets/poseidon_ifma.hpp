#pragma once
// The Poseidon witness's mixes on AVX-512 IFMA (ff/fr_ifma.hpp). In a partial round
// only element 0 goes through the S-box (whose values the witness records); elements 1..t-1 only
// take part in the sparse mix: out_0 = sum w_hat_i s_i, out_j = s_j + v_j s_0. They stay in one
// vector of 8 lanes for all the partial rounds, so the round's 8 products v_j s_0 and the 8
// products w_hat_j s_j are two vector Montgomery products instead of 16 scalar ones; the scalar
// side keeps the S-box and w_hat_0 s_0. A dense mix (full rounds) puts output columns 1..t-1 in
// the lanes: t vector products against t scalar ones per column. The values are exactly those of
// the scalar code. Widths 5..9 (arities 4 and 8); others return false.
#include <cstddef>

#include "gadgets/poseidon_constants.hpp"

namespace cuzk::gadgets::detail {

// Runs c.partial_rounds partial rounds on the state s[0..t) as poseidon_witness does: per round,
// s[0]'s S-box values (l, l^2, l^4, l^5 + k[r]) written to o[0..4) (o advances by 4) and the sparse
// mix (o == nullptr: nothing recorded, the plain permutation). Returns false without touching anything when the CPU has
// no AVX-512 IFMA or the width is not 5..9 (the caller runs the scalar rounds).
bool poseidon_partial_rounds_ifma(const PoseidonConstants& c, Fr* s, const Fr* k, Fr*& o);
// s := s·M for c.mds, or c.pre_sparse_matrix when pre_sparse; false (nothing done) as above.
bool poseidon_dense_mix_ifma(const PoseidonConstants& c, bool pre_sparse, Fr* s);

}  // namespace cuzk::gadgets::detail
