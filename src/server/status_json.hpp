#pragma once
// The engine's status as one JSON object: what HTTP /status serves (docs/daemon.md).
#include <string>

#include "engine/engine_api.hpp"

namespace cuzk::server {

std::string engine_status_json(const engine::EngineStatus& status, const std::string& version);

}  // namespace cuzk::server
