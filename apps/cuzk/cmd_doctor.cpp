// `cuzk doctor`: the preflight of a proving host (engine/preflight.hpp) as a table or JSON. Exit
// code 0 when no check fails (warnings allowed), 1 when one does, 2 for bad usage or a
// configuration that does not load.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.hpp"
#include "engine/config.hpp"
#include "engine/preflight.hpp"
#include "util/progress.hpp"

namespace cuzk::cli {
namespace {

nlohmann::json to_json(const engine::PreflightReport& report, const std::string& config_path) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : report.checks) {
    nlohmann::json facts = nlohmann::json::object();
    for (const auto& fact : c.facts) {
      // No structured binding here: older clang (the sanitizer build) cannot capture one.
      const std::string& key = fact.first;
      std::visit([&facts, &key](const auto& v) { facts[key] = v; }, fact.second);
    }
    checks.push_back({{"group", c.group},
                      {"name", c.name},
                      {"status", engine::to_string(c.status)},
                      {"message", c.message},
                      {"facts", facts}});
  }
  return {{"ok", !report.failed()},
          {"config", config_path.empty() ? "(defaults)" : config_path},
          {"pass", report.count(engine::CheckStatus::Pass)},
          {"warn", report.count(engine::CheckStatus::Warn)},
          {"fail", report.count(engine::CheckStatus::Fail)},
          {"checks", checks}};
}

void print_table(const engine::PreflightReport& report, const std::string& config_path) {
  std::printf("cuzk doctor: %s\n", config_path.empty() ? "default configuration" : config_path.c_str());
  for (const auto& c : report.checks) {
    std::printf("%-4s  %-7s %s: %s\n", engine::to_string(c.status), c.group.c_str(), c.name.c_str(), c.message.c_str());
  }
  std::printf("%zu pass, %zu warn, %zu fail\n", report.count(engine::CheckStatus::Pass),
              report.count(engine::CheckStatus::Warn), report.count(engine::CheckStatus::Fail));
}

}  // namespace

CLI::App* add_doctor_command(CLI::App& app, DoctorOptions& o) {
  auto* d = app.add_subcommand("doctor",
                               "Check this host before it takes work: GPUs, memory, parameter files, PCE directory, "
                               "listen address, configuration (exit 0 no failure, 1 a check failed)");
  d->add_option("-c,--config", o.config, "The daemon's configuration file (TOML); without it the defaults");
  d->add_flag("--digests", o.digests,
              "Also hash every official parameter file present and compare with parameters.json (BLAKE2b over up "
              "to ~100 GB: minutes; without it files are checked by name, size and layout)");
  d->add_flag("--json", o.json, "Print one JSON object instead of a table");
  return d;
}

int run_doctor(const DoctorOptions& o) {
  auto config = o.config.empty() ? engine::default_config() : engine::load_config(o.config);
  if (!config) {
    std::cerr << "cuzk doctor: configuration error: " << config.error() << "\n";
    return 2;
  }
  engine::PreflightOptions options;
  options.digests = o.digests;
  std::unique_ptr<Progress> bar;  // one per file; drawn only on a terminal
  std::string current;
  options.digest_progress = [&](const std::string& file, uint64_t done, uint64_t total) {
    if (file != current) {
      bar.reset();
      bar = std::make_unique<Progress>("hashing " + file, total);
      current = file;
    }
    bar->update(done);
  };
  const engine::PreflightReport report = engine::run_preflight(*config, options);
  bar.reset();
  if (o.json) {
    std::cout << to_json(report, o.config).dump(2) << "\n";
  } else {
    print_table(report, o.config);
  }
  return report.failed() ? 1 : 0;
}

}  // namespace cuzk::cli
