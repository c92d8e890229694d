// `cuzk circuit info`: the size of a named test circuit (constraints, inputs, aux), built without
// values, next to the count the reference implementation's own test asserts for it.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "filecoin/test_circuits.hpp"

namespace cuzk::cli {

CLI::App* add_circuit_command(CLI::App& app, CircuitOptions& o) {
  auto* circuit = app.add_subcommand("circuit", "Filecoin test circuits: sizes");
  circuit->require_subcommand(1);
  auto* info = circuit->add_subcommand("info", "Constraints, inputs and aux of a named test circuit");
  info->add_option("--circuit", o.circuit, "Circuit:\n" + filecoin::test_circuit_help())
      ->required()
      ->check(CLI::IsMember(filecoin::test_circuit_names()));
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

int run_circuit(const CircuitOptions& o) {
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
