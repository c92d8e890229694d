// Where a circuit proves on a device of a given size (backend/fit_ladder.hpp), without a device:
// the 32 GiB PoRep partition on fake devices of 8, 12, 16, 24, 80 and 141 GiB (the GPUs storage
// providers own, up to an H200), and the ladder's rungs in order.
#include <gtest/gtest.h>

#include <cstdio>

#include "backend/fit_ladder.hpp"
#include "pce/pce.hpp"
#include "porep32_shape.hpp"

namespace {

using namespace cuzk;
using backend::FitOptions;
using backend::Where;

using test::kGiB;
using test::porep32_key;
using test::porep32_shape;

// The daemon's first rung: two witness slots, G2 on the GPU, no tables.
FitOptions daemon_fit() {
  return {.b_g2_on_gpu = true, .witness_slots = 2};
}

TEST(PlacementPlan, Porep32GiBOnTheGpusStorageProvidersOwn) {
  struct Want {
    uint64_t gib;
    Where where;
    const char* mode;  // streamed arrangement
  };
  for (const Want& w :
       {Want{8, Where::Cpu, ""}, Want{12, Where::Streamed, "host2"}, Want{16, Where::Streamed, "stream2"},
        Want{24, Where::Streamed, "stream2"}, Want{80, Where::Streamed, "pce3"}, Want{141, Where::Resident, ""}}) {
    const backend::PlacementChoice c =
        backend::plan_placement(w.gib * kGiB, porep32_key(), porep32_shape(), daemon_fit());
    std::printf("%3llu GiB: %s\n", static_cast<unsigned long long>(w.gib), c.describe().c_str());
    SCOPED_TRACE(std::to_string(w.gib) + " GiB: " + c.describe());
    EXPECT_EQ(c.where, w.where);
    if (c.where != Where::Cpu) {
      EXPECT_LE(c.device_bytes, w.gib * kGiB);
    }
    if (c.where == Where::Streamed) {
      EXPECT_TRUE(c.fit.streamed);
      EXPECT_STREQ(gpu::to_string(c.streamed.mode), w.mode);
    }
    if (c.where == Where::Cpu) {
      // What it would take is said: the smallest cap of the streamed prover (above this device).
      EXPECT_GT(c.streamed.smallest_cap, w.gib * kGiB);
      EXPECT_NE(c.describe().find("at least " + gpu::format_gib(c.streamed.smallest_cap)), std::string::npos);
    }
  }
  // At exactly the streamed prover's smallest cap it streams; a byte below, the CPU.
  const auto cpu = backend::plan_placement(8 * kGiB, porep32_key(), porep32_shape(), daemon_fit());
  const uint64_t smallest = cpu.streamed.smallest_cap;
  EXPECT_EQ(backend::plan_placement(smallest, porep32_key(), porep32_shape(), daemon_fit()).where, Where::Streamed);
  EXPECT_EQ(backend::plan_placement(smallest - 1, porep32_key(), porep32_shape(), daemon_fit()).where, Where::Cpu);
}

// The H200 case: the first rung that fits is taken, never a lower one.
TEST(PlacementPlan, TheFirstResidentRungThatFitsIsTaken) {
  const auto key = porep32_key();
  const auto shape = porep32_shape();
  const FitOptions first = daemon_fit();
  const auto full = gpu::resident_memory(key, {shape.num_inputs, shape.num_aux, shape.num_constraints, shape.pce_bytes},
                                         {.b_g2_on_gpu = true, .witness_slots = 2});
  const auto one_slot = gpu::resident_memory(
      key, {shape.num_inputs, shape.num_aux, shape.num_constraints, shape.pce_bytes}, {.b_g2_on_gpu = true});
  auto at = [&](uint64_t room) { return backend::plan_placement(room, key, shape, first); };
  EXPECT_EQ(at(full.total()).fit.witness_slots, 2u);
  EXPECT_EQ(at(full.total() - 1).fit.witness_slots, 1u);
  EXPECT_TRUE(at(full.total() - 1).fit.b_g2_on_gpu);
  EXPECT_EQ(at(one_slot.total()).where, Where::Resident);
  EXPECT_FALSE(at(one_slot.total() - 1).fit.b_g2_on_gpu) << "next: the G2 MSM on the CPU";
}

TEST(FitLadder, RungsInOrder) {
  const FitOptions first{.b_g2_on_gpu = true, .msm_table_bits = 20, .witness_slots = 2};
  std::vector<std::string> events;
  std::optional<FitOptions> f = first;
  std::string e;
  while ((f = backend::lower_fit(*f, first, true, &e))) events.push_back(e);
  EXPECT_EQ(events, (std::vector<std::string>{"gpu_witness_slots_reduced", "gpu_msm_tables_dropped",
                                              "gpu_g2_msm_on_cpu", "gpu_prover_streamed", "gpu_g2_msm_on_cpu"}));
  // A zkey's prover cannot stream: the ladder ends at the G2 MSM on the CPU.
  events.clear();
  f = first;
  while ((f = backend::lower_fit(*f, first, false, &e))) events.push_back(e);
  EXPECT_EQ(events.back(), "gpu_g2_msm_on_cpu");
  EXPECT_EQ(events.size(), 3u);
  // With the G2 MSM on the CPU from the start (gpus.g2_msm = "cpu"), streaming keeps it there.
  const FitOptions g2cpu{.b_g2_on_gpu = false};
  const auto s = backend::lower_fit(g2cpu, g2cpu, true, &e);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->streamed);
  EXPECT_FALSE(s->b_g2_on_gpu);
  EXPECT_FALSE(backend::lower_fit(*s, g2cpu, true));
}

}  // namespace
