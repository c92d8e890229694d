// `cuzk circuit info`: the size of a named test circuit (constraints, inputs, aux), built without
// values, next to the count the reference implementation's own test asserts for it.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "filecoin/porep_circuit_info.hpp"
#include "filecoin/post_circuit_info.hpp"
#include "filecoin/registered_post_proof.hpp"
#include "filecoin/registered_proof.hpp"
#include "filecoin/snap_circuit_info.hpp"
#include "filecoin/test_circuits.hpp"
#include "util/progress.hpp"

namespace cuzk::cli {

CLI::App* add_circuit_command(CLI::App& app, CircuitOptions& o) {
  auto* circuit = app.add_subcommand("circuit", "Filecoin test circuits: sizes");
  circuit->require_subcommand(1);
  auto* info = circuit->add_subcommand("info", "Constraints, inputs and aux of a named test circuit");
  std::vector<std::string> names = filecoin::test_circuit_names();
  names.insert(names.end(),
               {"porep", "porep-test", "window-post", "winning-post", "post-test", "snap", "snap-poseidon"});
  info->add_option(
          "--circuit", o.circuit,
          "Circuit:\n" + filecoin::test_circuit_help() +
              "  porep: the PoRep C2 partition circuit of --sector-size (or --proof), counted in constant "
              "memory (32 GiB: ~1 min); prints the PCE's rows and non-zeros too\n"
              "  porep-test: the reference's test circuit (tests/stacked_circuit.rs: 2 layers, 1 "
              "challenge) with tree shape --arity/--sub/--top\n"
              "  window-post, winning-post: the FallbackPoSt partition circuit of --sector-size (or --proof, a "
              "registered PoSt proof name); window-post 32/64 GiB: ~125 M constraints, minutes\n"
              "  post-test: the reference's test circuit (tests/fallback_circuit.rs: 64 leaves per base tree) "
              "with --sectors, --challenges and tree shape --arity/--sub/--top\n"
              "  snap: the SnapDeals (EmptySectorUpdate) partition circuit of --sector-size (1KiB-32KiB, 8MiB, "
              "16MiB, 512MiB, 32GiB, 64GiB); 32/64 GiB: ~81-85 M constraints, ~20 s\n"
              "  snap-poseidon: its variant with a Poseidon tree D (one partition; unused by the public API)")
      ->required()
      ->check(CLI::IsMember(names));
  info->add_option("--sector-size", o.sector_size,
                   "porep, window-post, winning-post: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB; snap: also 1KiB, 4KiB, "
                   "8KiB, 16KiB, 32KiB, 16MiB");
  info->add_option("--proof", o.proof,
                   "porep: a registered seal proof name (e.g. StackedDrg32GiBV1_1); window-post / winning-post: a "
                   "registered PoSt proof name (e.g. StackedDrgWindow32GiBV1_1)");
  info->add_option("--sectors", o.sectors, "post-test: sectors per partition")->check(CLI::Range(1, 100000));
  info->add_option("--challenges", o.challenges, "post-test: challenges per sector")->check(CLI::Range(1, 1000));
  info->add_option("--hasher", o.hasher, "por: Merkle hasher")->check(CLI::IsMember({"sha256", "poseidon"}));
  info->add_option("--arity", o.arity, "por: base tree arity")->check(CLI::IsMember({2, 4, 8, 16}));
  info->add_option("--sub-arity,--sub", o.sub_arity, "por: sub-tree arity (0 = none)")
      ->check(CLI::IsMember({0, 2, 4, 8, 16}));
  info->add_option("--top-arity,--top", o.top_arity, "por: top-tree arity (0 = none)")
      ->check(CLI::IsMember({0, 2, 4, 8, 16}));
  info->add_option("--leaves", o.leaves, "por: leaves (default 64 x base tree count, as por_circuit.rs)");
  info->add_flag("--private-root", o.private_root, "por: keep the root out of the public inputs");
  info->add_option("--size", o.size, "insert / select: number of slots (power of two)")->check(CLI::Range(2, 1024));
  info->add_option("--bits", o.bits, "sha256: message bits (multiple of 8)")->check(CLI::Range(0, 1 << 20));
  info->add_flag("--json", o.json, "Print one JSON object");
  info->callback([&o] { o.action = "info"; });
  return circuit;
}

namespace {

// The counts of a counted Filecoin circuit (PoRep or PoSt info: the same fields), as JSON or text.
template <class Info>
int print_counted(const std::string& what, const std::string& shape, const Info& info, bool json) {
  if (json) {
    nlohmann::ordered_json j;
    j["circuit"] = what;
    j["shape"] = shape;
    j["constraints"] = info.constraints;
    j["inputs"] = info.inputs;
    j["aux"] = info.aux;
    j["pce_rows"] = info.pce_rows;
    j["nnz_a"] = info.nnz_a;
    j["nnz_b"] = info.nnz_b;
    j["nnz_c"] = info.nnz_c;
    j["domain"] = info.domain;
    j["mode"] = "counting";
    j["seconds"] = info.seconds;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "circuit                " << what << " (" << shape << ")\n"
            << "constraints            " << info.constraints << "  (without the " << info.inputs
            << " input constraints, as the reference's tests count)\n"
            << "inputs (with ONE)      " << info.inputs << "\n"
            << "aux                    " << info.aux << "\n"
            << "PCE rows               " << info.pce_rows << "\n"
            << "nnz A / B / C          " << info.nnz_a << " / " << info.nnz_b << " / " << info.nnz_c << "\n"
            << "QAP domain             " << info.domain << "\n"
            << "counted in             " << info.seconds << " s (counting mode, constant memory)\n";
  return 0;
}

int run_porep_info(const CircuitOptions& o) {
  filecoin::PorepCircuitShape shape;
  std::string what;
  if (o.circuit == "porep-test") {
    shape = filecoin::PorepCircuitShape::reference_test({o.arity, o.sub_arity, o.top_arity});
    what = "porep-test";
  } else {
    if (o.proof.empty() == o.sector_size.empty()) {
      throw std::invalid_argument("--circuit porep needs one of --sector-size or --proof");
    }
    const filecoin::RegisteredSealProof& proof =
        o.proof.empty() ? filecoin::default_seal_proof(filecoin::parse_sector_size(o.sector_size))
                        : filecoin::registered_seal_proof(o.proof);
    shape = filecoin::PorepCircuitShape::of(proof);
    what = "porep " + filecoin::sector_size_name(proof.shape.sector_size);
  }
  filecoin::PorepCircuitInfo info;
  {
    Progress bar("counting challenges", shape.challenges);
    info = filecoin::porep_circuit_info(shape, [&bar](size_t done, size_t) { bar.update(done); });
  }
  return print_counted(what, shape.describe(), info, o.json);
}

filecoin::PostCircuitShape post_shape(const CircuitOptions& o, std::string& what) {
  if (o.circuit == "post-test") {
    what = "post-test";
    return filecoin::PostCircuitShape::reference_test({o.arity, o.sub_arity, o.top_arity}, o.sectors, o.challenges);
  }
  const filecoin::PostType type =
      o.circuit == "window-post" ? filecoin::PostType::kWindow : filecoin::PostType::kWinning;
  if (o.proof.empty() == o.sector_size.empty()) {
    throw std::invalid_argument("--circuit " + o.circuit + " needs one of --sector-size or --proof");
  }
  const filecoin::RegisteredPostProof& proof =
      o.proof.empty() ? filecoin::default_post_proof(type, filecoin::parse_sector_size(o.sector_size))
                      : filecoin::registered_post_proof(o.proof);
  if (proof.type != type) throw std::invalid_argument("--proof " + o.proof + " is not a " + o.circuit + " proof");
  what = o.circuit + " " + filecoin::sector_size_name(proof.shape.sector_size);
  return filecoin::PostCircuitShape::of(proof);
}

int run_post_info(const CircuitOptions& o) {
  std::string what;
  const filecoin::PostCircuitShape shape = post_shape(o, what);
  filecoin::PostCircuitInfo info;
  {
    Progress bar("counting sectors", shape.sectors);
    info = filecoin::post_circuit_info(shape, [&bar](size_t done, size_t) { bar.update(done); });
  }
  return print_counted(what, shape.describe(), info, o.json);
}

int run_snap_info(const CircuitOptions& o) {
  if (o.sector_size.empty()) throw std::invalid_argument("--circuit " + o.circuit + " needs --sector-size");
  const filecoin::SnapCircuitShape shape = filecoin::SnapCircuitShape::of(
      filecoin::parse_snap_sector_size(o.sector_size),
      o.circuit == "snap" ? filecoin::SnapTreeD::kSha256 : filecoin::SnapTreeD::kPoseidon);
  const filecoin::SnapCircuitInfo info = filecoin::snap_circuit_info(shape);
  return print_counted(o.circuit + " " + filecoin::sector_size_name(shape.nodes * 32), shape.describe(), info, o.json);
}

}  // namespace

int run_circuit(const CircuitOptions& o) {
  if (o.circuit == "snap" || o.circuit == "snap-poseidon") return run_snap_info(o);
  if (o.circuit == "porep" || o.circuit == "porep-test") return run_porep_info(o);
  if (o.circuit == "window-post" || o.circuit == "winning-post" || o.circuit == "post-test") return run_post_info(o);
  filecoin::TestCircuitParams p;
  p.hasher = o.hasher;
  p.arity = o.arity;
  p.sub_arity = o.sub_arity;
  p.top_arity = o.top_arity;
  p.leaves = o.leaves;
  p.private_root = o.private_root;
  p.size = o.size;
  p.bits = o.bits;
  const filecoin::TestCircuitInfo info = filecoin::test_circuit_info(o.circuit, p);
  if (o.json) {
    nlohmann::ordered_json j;
    j["circuit"] = info.name;
    j["constraints"] = info.constraints;
    j["inputs"] = info.inputs;
    j["aux"] = info.aux;
    j["reference_constraints"] = info.reference_constraints;
    j["reference"] = info.reference;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "circuit                " << info.name << "\n"
            << "constraints            " << info.constraints << "\n"
            << "inputs (with ONE)      " << info.inputs << "\n"
            << "aux                    " << info.aux << "\n"
            << "reference_constraints  " << info.reference_constraints << "\n"
            << "reference              " << info.reference << "\n";
  return 0;
}

}  // namespace cuzk::cli
