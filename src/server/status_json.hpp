#pragma once
// The engine's status as one JSON object: what HTTP /status serves (docs/daemon.md).
#include <string>
#include <vector>

#include "engine/engine_api.hpp"

namespace cuzk::server {

// `unauthenticated_from`: daemon.allow_unauthenticated_from (the server's, not the engine's).
std::string engine_status_json(const engine::EngineStatus& status, const std::string& version,
                               const std::vector<std::string>& unauthenticated_from = {});

}  // namespace cuzk::server
