// The 32 GiB and 64 GiB PoRep partition circuits counted in constant memory (CountingCS, ~35 s
// each in Release). 32 GiB against the seed's measured PCE (filecoin-circuits.md 2.4, curio
// cuzk-project.md "PCE Synthesis Benchmark": 130,278,869 rows, 328 inputs, 130,169,893 aux, nnz
// 309,405,051 / 130,327,340 / 282,656,500); 64 GiB against the closed form of 2.4.
#include <gtest/gtest.h>

#include "filecoin/porep_circuit_info.hpp"

namespace cuzk::filecoin {
namespace {

TEST(PorepCircuitLarge, Counts32GiB) {
  const PorepCircuitInfo i = porep_circuit_info(PorepCircuitShape::of(registered_seal_proof("StackedDrg32GiBV1_1")));
  EXPECT_EQ(i.constraints, 130'278'541u);
  EXPECT_EQ(i.pce_rows, 130'278'869u);
  EXPECT_EQ(i.inputs, 328u);
  EXPECT_EQ(i.aux, 130'169'893u);
  EXPECT_EQ(i.nnz_a, 309'405'051u);
  EXPECT_EQ(i.nnz_b, 130'327'340u);
  EXPECT_EQ(i.nnz_c, 282'656'500u);
  EXPECT_EQ(i.domain, uint64_t{1} << 27);
}

TEST(PorepCircuitLarge, Counts64GiB) {
  const PorepCircuitInfo i = porep_circuit_info(PorepCircuitShape::of(registered_seal_proof("StackedDrg64GiBV1_1")));
  EXPECT_EQ(i.constraints, 131'185'849u);
  EXPECT_EQ(i.inputs, 328u);
  EXPECT_EQ(i.aux, 131'076'643u);
  EXPECT_EQ(i.pce_rows, 131'186'177u);
  EXPECT_EQ(i.domain, uint64_t{1} << 27);
}

}  // namespace
}  // namespace cuzk::filecoin
