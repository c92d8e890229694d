#include "engine/request_ids.hpp"

#include <algorithm>

namespace cuzk::engine {

RequestIds::Decision RequestIds::decide(const std::string& request_id, const RequestDigest& digest,
                                        const std::function<bool(const std::string&)>& joinable) const {
  Decision d;
  if (request_id.empty()) return d;
  const auto it = by_id_.find(request_id);
  if (it == by_id_.end() || it->second.empty()) return d;
  const std::vector<Entry>& jobs = it->second;
  bool equal_ended = false;
  for (auto e = jobs.rbegin(); e != jobs.rend(); ++e) {
    if (e->digest != digest) continue;
    if (joinable(e->job_id)) return {Decision::Join, e->job_id};
    equal_ended = true;
  }
  return {equal_ended ? Decision::Rerun : Decision::NewContent, jobs.back().job_id};
}

std::string RequestIds::job_id_for(const std::string& request_id,
                                   const std::function<bool(const std::string&)>& taken) {
  if (!taken(request_id)) return request_id;
  for (uint64_t n = 2;; ++n) {
    std::string id = request_id + "#" + std::to_string(n);
    if (!taken(id)) return id;
  }
}

void RequestIds::add(const std::string& request_id, const std::string& job_id, const RequestDigest& digest) {
  if (!request_id.empty()) by_id_[request_id].push_back({job_id, digest});
}

void RequestIds::remove(const std::string& request_id, const std::string& job_id) {
  const auto it = by_id_.find(request_id);
  if (it == by_id_.end()) return;
  std::erase_if(it->second, [&](const Entry& e) { return e.job_id == job_id; });
  if (it->second.empty()) by_id_.erase(it);
}

size_t RequestIds::jobs_of(const std::string& request_id) const {
  const auto it = by_id_.find(request_id);
  return it == by_id_.end() ? 0 : it->second.size();
}

const char* decision_name(RequestIds::Decision::What what) {
  switch (what) {
    case RequestIds::Decision::Join:
      return "joined";
    case RequestIds::Decision::NewContent:
      return "new_content";
    case RequestIds::Decision::Rerun:
      return "rerun";
    case RequestIds::Decision::Fresh:
      break;
  }
  return "fresh";
}

}  // namespace cuzk::engine
