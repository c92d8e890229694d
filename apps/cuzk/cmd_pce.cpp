// `cuzk pce ...`: extract, inspect, verify and benchmark pre-compiled circuits (.pce files).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "circuits/builtin.hpp"
#include "cli_util.hpp"
#include "commands.hpp"
#include "filecoin/post_synthesis.hpp"
#include "filecoin/snap_synthesis.hpp"
#include "pce/build.hpp"
#include "pce/from_circom.hpp"
#include "pce/matvec.hpp"
#include "pce/pce_file.hpp"
#include "pce/synthetic.hpp"
#include "post_cli.hpp"
#include "r1cs/compact_r1cs.hpp"
#include "snap_cli.hpp"
#include "util/mapped_file.hpp"
#include "util/progress.hpp"
#include "util/rng.hpp"
#include "util/thread_pool.hpp"

namespace cuzk::cli {

namespace {

using json = nlohmann::ordered_json;
using pce::Fr;

std::optional<pce::CoeffEncoding> parse_encoding(const std::string& s) {
  if (s == "auto") return std::nullopt;
  if (s == "dict8") return pce::CoeffEncoding::Dict8;
  if (s == "dict16") return pce::CoeffEncoding::Dict16;
  return pce::CoeffEncoding::Full;
}

// What the seed system's format would take for the same matrices: 32-byte coefficients, u32
// columns, u64 row pointers (shared/reference/cuzk-seed-system.md).
uint64_t seed_format_bytes(const pce::PceInfo& in) {
  return in.nnz_total() * (32 + 4) + 3 * (in.num_constraints + 1) * 8;
}

uint64_t distinct_coefficients(const pce::PceInfo& info, const std::string& path) {
  if (info.encoding != pce::CoeffEncoding::Full) return info.dict_size;
  // Full encoding: count by interning every value (only `info` of such files pays this).
  pce::LoadOptions lo;
  lo.validate_structure = false;
  auto p = pce::load_pce(path, lo);
  if (!p) throw std::runtime_error(p.error());
  r1cs::CoeffInterner interner;
  for (int m = 0; m < 3; ++m) {
    for (const Fr& v : p->matrix(static_cast<pce::MatrixId>(m)).values) interner.intern(v);
  }
  return interner.values().size();
}

json info_json(const pce::PceFileHeader& h, uint64_t distinct) {
  const pce::PceInfo& in = h.info;
  json j;
  j["circuit_id"] = in.circuit_id;
  j["format_version"] = h.format_version;
  j["constraints"] = in.num_constraints;
  j["inputs"] = in.num_inputs;
  j["aux"] = in.num_aux;
  j["nnz_a"] = in.nnz[0];
  j["nnz_b"] = in.nnz[1];
  j["nnz_c"] = in.nnz[2];
  j["distinct_coefficients"] = distinct;
  j["encoding"] = pce::to_string(in.encoding);
  j["row_ptr_bytes"] = {in.row_ptr_width[0], in.row_ptr_width[1], in.row_ptr_width[2]};
  j["file_bytes"] = h.file_bytes;
  j["bytes_per_nonzero"] =
      in.nnz_total() ? static_cast<double>(h.file_bytes) / static_cast<double>(in.nnz_total()) : 0.0;
  j["seed_format_bytes"] = seed_format_bytes(in);
  j["compression_vs_seed_format"] = static_cast<double>(seed_format_bytes(in)) / static_cast<double>(h.file_bytes);
  char hash[19];
  std::snprintf(hash, sizeof(hash), "0x%016llx", static_cast<unsigned long long>(h.structural_hash));
  j["structural_hash"] = hash;
  return j;
}

void print_info(const json& j) {
  auto gib = [](uint64_t b) { return static_cast<double>(b) / (1ull << 30); };
  std::printf("circuit            %s\n", j["circuit_id"].get<std::string>().c_str());
  std::printf("format version     %u\n", j["format_version"].get<unsigned>());
  std::printf("constraints        %llu\n", static_cast<unsigned long long>(j["constraints"].get<uint64_t>()));
  std::printf("inputs / aux       %llu / %llu\n", static_cast<unsigned long long>(j["inputs"].get<uint64_t>()),
              static_cast<unsigned long long>(j["aux"].get<uint64_t>()));
  std::printf("nnz A / B / C      %llu / %llu / %llu\n", static_cast<unsigned long long>(j["nnz_a"].get<uint64_t>()),
              static_cast<unsigned long long>(j["nnz_b"].get<uint64_t>()),
              static_cast<unsigned long long>(j["nnz_c"].get<uint64_t>()));
  std::printf("coefficients       %llu distinct, stored as %s\n",
              static_cast<unsigned long long>(j["distinct_coefficients"].get<uint64_t>()),
              j["encoding"].get<std::string>().c_str());
  std::printf("file               %.3f GiB (%.2f bytes per non-zero)\n", gib(j["file_bytes"].get<uint64_t>()),
              j["bytes_per_nonzero"].get<double>());
  std::printf("compression        %.2fx smaller than 32-byte coefficients + u64 row pointers (%.3f GiB)\n",
              j["compression_vs_seed_format"].get<double>(), gib(j["seed_format_bytes"].get<uint64_t>()));
  std::printf("structural hash    %s\n", j["structural_hash"].get<std::string>().c_str());
}

// record_snap_circuit_parallel's timings: the serial head, the merge, and every concurrent job
// (the longest is the recording's critical path; its share of the constraints is what bounds the
// speed-up on many cores).
json snap_record_json(const filecoin::SnapRecordStats& st) {
  json jobs = json::array();
  for (const auto& job : st.jobs) {
    jobs.push_back({{"name", job.name}, {"constraints", job.constraints}, {"seconds", job.seconds}});
  }
  return {{"head_constraints", st.head_constraints},
          {"head_seconds", st.head_seconds},
          {"jobs_seconds", st.jobs_seconds},
          {"merge_seconds", st.merge_seconds},
          {"jobs", std::move(jobs)}};
}

// One line per phase; the jobs as the longest by time and the largest by constraints.
void print_snap_record(const filecoin::SnapRecordStats& st, uint64_t constraints) {
  if (st.jobs.empty()) return;
  auto by = [](auto key) { return [key](const auto& a, const auto& b) { return key(a) < key(b); }; };
  const auto& slow = *std::max_element(st.jobs.begin(), st.jobs.end(), by([](const auto& j) { return j.seconds; }));
  const auto& big = *std::max_element(st.jobs.begin(), st.jobs.end(), by([](const auto& j) { return j.constraints; }));
  const double total = static_cast<double>(constraints);
  std::printf("record head        %llu constraints in %.2f s (one thread)\n",
              static_cast<unsigned long long>(st.head_constraints), st.head_seconds);
  std::printf("record jobs        %zu in %.2f s; longest %s (%.2f s); largest %s (%llu constraints, %.2f%%)\n",
              st.jobs.size(), st.jobs_seconds, slow.name.c_str(), slow.seconds, big.name.c_str(),
              static_cast<unsigned long long>(big.constraints), 100.0 * static_cast<double>(big.constraints) / total);
  std::printf("record merge       %.2f s\n", st.merge_seconds);
}

int run_extract(const PceOptions& o) {
  pce::BuildOptions bo;
  bo.circuit_id = o.circuit_id;
  bo.encoding = parse_encoding(o.encoding);
  std::optional<circuits::BuiltinSpec> spec;
  const filecoin::RegisteredPostProof* post = o.r1cs.empty() ? post_proof_of(o.circuit) : nullptr;
  const filecoin::RegisteredUpdateProof* update = nullptr;
  if (o.r1cs.empty()) {
    try {
      update = update_proof_of(o.circuit);
    } catch (const std::exception& e) {  // snap: of a size SnapDeals does not have
      std::cerr << "cuzk: error: " << e.what() << "\n";
      return 2;
    }
  }
  if (post != nullptr || update != nullptr) {
    if (bo.circuit_id.empty()) bo.circuit_id = update ? filecoin::snap_circuit_id(*update) : o.circuit;
  } else if (o.r1cs.empty() && !o.circuit.empty()) {
    auto parsed = circuits::parse_builtin(o.circuit);
    if (!parsed) {
      std::cerr << "cuzk: error: " << parsed.error();
      return 2;
    }
    spec = *parsed;
    if (bo.circuit_id.empty()) bo.circuit_id = "builtin:" + spec->name();
  } else if (o.r1cs.empty() && bo.encoding && *bo.encoding != pce::CoeffEncoding::Dict8) {
    std::cerr << "cuzk: error: --synthetic-porep PCEs are dict8\n";
    return 2;
  }
  const auto t0 = Clock::now();
  double record_s = -1;  // PoSt, SnapDeals: the recording alone (PoSt: one sector replicated)
  filecoin::SnapRecordStats snap_stats;
  Result<pce::Pce> p = make_error("no source");
  {
    // No progress hook in recording or building: the bar shows the time they take.
    Progress bar("extracting " + o.output, 0, !o.json && !o.quiet);
    ProgressTicker ticker(bar);
    if (!o.r1cs.empty()) {
      p = pce::pce_from_circom_file(o.r1cs, bo);
    } else if (post != nullptr) {
      const r1cs::CompactR1cs r = filecoin::record_post_circuit_replicated(*post, ThreadPool::global());
      record_s = since(t0);
      p = pce::build_pce(r, bo);
    } else if (update != nullptr) {
      const r1cs::CompactR1cs r = filecoin::record_snap_circuit_parallel(
          filecoin::SnapCircuitShape::of(update->sector_size), ThreadPool::global(), &snap_stats);
      record_s = since(t0);
      p = pce::build_pce(r, bo);
    } else if (spec) {
      p = pce::build_pce(circuits::record_builtin(*spec), bo);
    } else {
      p = pce::synthetic_pce(pce::SyntheticShape::porep_32g(o.synthetic_scale),
                             o.circuit_id.empty() ? "synthetic:porep-32g" : o.circuit_id);
    }
  }
  if (!p) {
    std::cerr << "cuzk: error: " << p.error() << "\n";
    return 1;
  }
  const double build_s = since(t0);
  const auto t1 = Clock::now();
  Progress bar("saving " + o.output, 1, !o.json && !o.quiet);
  auto h = pce::save_pce(*p, o.output, bar.callback());
  bar.finish();
  if (!h) {
    std::cerr << "cuzk: error: " << h.error() << "\n";
    return 1;
  }
  const double save_s = since(t1);
  json j = info_json(
      *h, p->encoding() == pce::CoeffEncoding::Full ? distinct_coefficients(h->info, o.output) : p->info().dict_size);
  j["path"] = o.output;
  j["build_seconds"] = build_s;
  if (record_s >= 0) j["record_seconds"] = record_s;
  if (update != nullptr) j["record_stats"] = snap_record_json(snap_stats);
  j["save_seconds"] = save_s;
  if (o.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    print_info(j);
    if (update != nullptr) print_snap_record(snap_stats, h->info.num_constraints);
    std::printf("written            %s (built in %.2f s, saved in %.2f s)\n", o.output.c_str(), build_s, save_s);
  }
  return 0;
}

int run_info(const PceOptions& o) {
  auto h = pce::read_pce_header(o.file);
  if (!h) {
    std::cerr << "cuzk: error: " << h.error() << "\n";
    return 1;
  }
  json j = info_json(*h, distinct_coefficients(h->info, o.file));
  if (o.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    print_info(j);
  }
  return 0;
}

int run_verify(const PceOptions& o) {
  pce::LoadOptions lo;
  lo.mode = o.mode == "read" ? pce::LoadOptions::Mode::Read : pce::LoadOptions::Mode::Mmap;
  const auto t0 = Clock::now();
  auto p = pce::load_pce(o.file, lo);
  const double s = since(t0);
  if (o.json) {
    json j;
    j["file"] = o.file;
    j["ok"] = p.ok();
    if (!p) j["error"] = p.error();
    j["seconds"] = s;
    std::cout << j.dump(2) << "\n";
  } else if (p) {
    std::printf("%s: ok (header, %zu section checksums, structure; %.2f s)\n", o.file.c_str(), pce::kNumSections, s);
  } else {
    std::cerr << "cuzk: " << p.error() << "\n";
  }
  return p ? 0 : 1;
}

// Reads the whole file with the same parallel preads as the loader, and nothing else: the floor
// that load times are compared with.
double plain_read_seconds(const std::string& path, uint64_t bytes) {
  PageBuffer buf(bytes);
  UniqueFd fd = open_read_only(path);
  const auto t0 = Clock::now();
  constexpr uint64_t kChunk = 8ull << 20;
  const uint64_t chunks = (bytes + kChunk - 1) / kChunk;
  ThreadPool::global().parallel_for(chunks, [&](size_t i) {
    const uint64_t off = i * kChunk, len = std::min(kChunk, bytes - off);
    pread_full(fd.get(), buf.bytes().subspan(off, len), off, path);
  });
  return since(t0);
}

template <class F>
double best_of(unsigned reps, F&& f) {
  double best = 1e300;
  for (unsigned i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, since(t0));
  }
  return best;
}

int run_bench(const PceOptions& o) {
  auto h = pce::read_pce_header(o.file);
  if (!h) {
    std::cerr << "cuzk: error: " << h.error() << "\n";
    return 1;
  }
  const uint64_t bytes = h->file_bytes;
  const double gb = static_cast<double>(bytes) / 1e9;
  const unsigned reps = std::max(1u, o.reps);
  json j;
  j["file"] = o.file;
  j["file_bytes"] = bytes;
  j["threads"] = ThreadPool::global().size();
  auto must = [](auto&& r) -> decltype(auto) {
    if (!r) throw std::runtime_error(r.error());
    return std::forward<decltype(r)>(r);
  };
  // Warm the page cache first so every measurement below reads from the same state.
  plain_read_seconds(o.file, bytes);
  const double read_s = best_of(reps, [&] { plain_read_seconds(o.file, bytes); });
  j["plain_read_s"] = read_s;
  j["plain_read_gbps"] = gb / read_s;
  j["header_open_ms"] = 1e3 * best_of(std::max(reps, 10u), [&] { must(pce::read_pce_header(o.file)); });
  pce::LoadOptions lo;
  lo.verify_checksums = false;
  lo.validate_structure = false;
  j["mmap_open_ms"] = 1e3 * best_of(std::max(reps, 10u), [&] { must(pce::load_pce(o.file, lo)); });
  lo.verify_checksums = true;
  const double mmap_ck = best_of(reps, [&] { must(pce::load_pce(o.file, lo)); });
  j["mmap_checksums_s"] = mmap_ck;
  j["mmap_checksums_gbps"] = gb / mmap_ck;
  lo.mode = pce::LoadOptions::Mode::Read;
  const double read_ck = best_of(reps, [&] { must(pce::load_pce(o.file, lo)); });
  j["read_checksums_s"] = read_ck;
  j["read_checksums_gbps"] = gb / read_ck;
  j["read_checksums_vs_plain_read"] = read_s / read_ck;
  lo.validate_structure = true;
  j["read_full_validation_s"] = best_of(reps, [&] { must(pce::load_pce(o.file, lo)); });

  pce::Pce p = must(pce::load_pce(o.file, lo)).value();
  const std::string tmp = o.file + ".bench-save";
  j["save_s"] = best_of(1, [&] { must(pce::save_pce(p, tmp)); });
  std::filesystem::remove(tmp);

  // A witness shaped like Filecoin's: mostly bits, some full values.
  Xoshiro256 rng(7);
  std::vector<Fr> inputs(p.num_inputs()), aux(p.num_aux());
  inputs[0] = Fr::one();
  auto fill = [&](std::vector<Fr>& v, size_t from) {
    for (size_t i = from; i < v.size(); ++i) {
      const uint64_t x = rng() % 10;
      v[i] = x < 4 ? Fr::zero() : x < 8 ? Fr::one() : Fr::random(rng);
    }
  };
  fill(inputs, 1);
  fill(aux, 0);
  std::vector<Fr> a(p.num_constraints()), b(p.num_constraints()), c(p.num_constraints());
  pce::MatVecOptions mo;
  mo.kernel = pce::MatVecKernel::Auto;
  pce::matvec(p, inputs, aux, a, b, c, mo);  // first touch of the outputs
  const double auto_s = best_of(reps, [&] { pce::matvec(p, inputs, aux, a, b, c, mo); });
  mo.kernel = pce::MatVecKernel::Generic;
  const double generic_s = best_of(reps, [&] { pce::matvec(p, inputs, aux, a, b, c, mo); });
  j["matvec_auto_s"] = auto_s;
  j["matvec_generic_s"] = generic_s;
  j["matvec_speedup"] = generic_s / auto_s;
  j["matvec_nnz_per_s"] = static_cast<double>(p.info().nnz_total()) / auto_s;

  if (o.json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("file                     %s, %.3f GB, %u threads, best of %u\n", o.file.c_str(), gb,
              j["threads"].get<unsigned>(), reps);
  std::printf("plain parallel read      %8.3f s  %6.2f GB/s\n", read_s, gb / read_s);
  std::printf("open + header            %8.3f ms\n", j["header_open_ms"].get<double>());
  std::printf("mmap open (no checks)    %8.3f ms\n", j["mmap_open_ms"].get<double>());
  std::printf("mmap + checksums         %8.3f s  %6.2f GB/s\n", mmap_ck, gb / mmap_ck);
  std::printf("read + checksums         %8.3f s  %6.2f GB/s  (%.0f%% of plain read)\n", read_ck, gb / read_ck,
              100.0 * read_s / read_ck);
  std::printf("read + full validation   %8.3f s\n", j["read_full_validation_s"].get<double>());
  std::printf("save (atomic, fsync)     %8.3f s\n", j["save_s"].get<double>());
  std::printf("MatVec dictionary        %8.3f s  (%.0f M nnz/s)\n", auto_s, j["matvec_nnz_per_s"].get<double>() / 1e6);
  std::printf("MatVec generic multiply  %8.3f s  (dictionary is %.2fx faster)\n", generic_s, generic_s / auto_s);
  return 0;
}

}  // namespace

CLI::App* add_pce_command(CLI::App& app, PceOptions& o) {
  auto* pce = app.add_subcommand("pce", "Pre-compiled circuits (.pce): extract, info, verify, bench");
  pce->require_subcommand(1);
  auto* ex = pce->add_subcommand(
      "extract", "Build a .pce from a circom .r1cs, a built-in circuit, or a synthetic PoRep-shaped one");
  auto* src =
      ex->add_option("--r1cs", o.r1cs, "circom .r1cs file (compiled with --prime bls12381)")->check(CLI::ExistingFile);
  auto* syn = ex->add_option("--synthetic-porep", o.synthetic_scale,
                             "Synthetic circuit with the 32 GiB PoRep partition's shape, scaled (0 < SCALE <= 1)")
                  ->check(CLI::Range(1e-9, 1.0));
  auto* cir = ex->add_option("--circuit", o.circuit,
                             "Built-in circuit, or window-post:SIZE / winning-post:SIZE (the PoSt partition "
                             "circuit, one sector recorded and replicated), snap:SIZE (the SnapDeals partition "
                             "circuit):\n" +
                                 circuits::builtin_help());
  src->excludes(syn);
  src->excludes(cir);
  syn->excludes(cir);
  ex->add_option("-o,--output", o.output, "Output .pce path (written atomically)")->required();
  ex->add_option("--circuit-id", o.circuit_id, "Identifier stored in the file (default: circom:<stem>)");
  ex->add_option("--encoding", o.encoding, "Coefficient encoding")
      ->check(CLI::IsMember({"auto", "dict8", "dict16", "full"}));
  ex->add_flag("--json", o.json, "Print one JSON object");
  ex->add_flag("-q,--quiet", o.quiet, "No progress bar");
  ex->callback([&o, src, syn, cir] {
    if (src->count() + syn->count() + cir->count() == 0) {
      throw CLI::RequiredError("--r1cs, --circuit or --synthetic-porep");
    }
    o.action = "extract";
  });

  auto* info = pce->add_subcommand("info", "Print a .pce file's header: counts, encoding, compression");
  info->add_option("file", o.file, ".pce file")->required();
  info->add_flag("--json", o.json, "Print one JSON object");
  info->callback([&o] { o.action = "info"; });

  auto* verify = pce->add_subcommand("verify", "Check a .pce file: header, every section checksum, structure");
  verify->add_option("file", o.file, ".pce file")->required();
  verify->add_option("--mode", o.mode, "Load mode")->check(CLI::IsMember({"mmap", "read"}));
  verify->add_flag("--json", o.json, "Print one JSON object");
  verify->callback([&o] { o.action = "verify"; });

  auto* bench = pce->add_subcommand("bench", "Time save, both load modes and MatVec next to a plain read of the file");
  bench->add_option("file", o.file, ".pce file")->required();
  bench->add_option("--reps", o.reps, "Repetitions (best is reported)")->check(CLI::Range(1, 1000));
  bench->add_option("--threads", o.threads, "Worker threads (default: all)")->check(CLI::Range(1, 4096));
  bench->add_flag("--json", o.json, "Print one JSON object");
  bench->callback([&o] { o.action = "bench"; });
  return pce;
}

int run_pce(const PceOptions& o) {
  if (o.action == "extract") return run_extract(o);
  if (o.action == "info") return run_info(o);
  if (o.action == "verify") return run_verify(o);
  if (o.action == "bench") return run_bench(o);
  return 2;
}

}  // namespace cuzk::cli
