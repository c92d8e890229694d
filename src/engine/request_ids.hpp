#pragma once
// The jobs each client request_id has named, and what a new request under a known id gets.
//
// Curio's ids are not unique per content (curio lib/ffi/cuzk_funcs.go): every partition of one
// WindowPoSt deadline shares `wdpost-<miner>-0-<randomness>`, a PoRep whose C1 was made again keeps
// `porep-<miner>-<sector>`, and a retry after a failure reuses its id. So a request joins an earlier
// job only when it asks for the same proof (equal request_digest) and that job is queued, running or
// completed; otherwise it is a new job, and an earlier job under the id keeps running for whoever
// awaits it. Jobs leave the index when the engine forgets them (completed_retention).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/request_digest.hpp"

namespace cuzk::engine {

class RequestIds {
 public:
  // What a request under `request_id` with `digest` gets, given whether each job of the id may be
  // joined (queued, running or completed; not failed or cancelled).
  struct Decision {
    enum What {
      Fresh,       // no job has this id (or no id given): a new job
      Join,        // an equal request's job: answer from it
      NewContent,  // the id's jobs asked for other proofs: a new job beside them
      Rerun,       // an equal request's job failed or was cancelled: a new job
    } what = Fresh;
    std::string job_id;  // Join: the job to answer from; NewContent, Rerun: the id's latest job
  };
  Decision decide(const std::string& request_id, const RequestDigest& digest,
                  const std::function<bool(const std::string& job_id)>& joinable) const;

  // The id a new job under `request_id` takes: the request id itself while no job has it (a seed
  // client may AwaitProof the request id), else "<request_id>#2", "#3", ... (`taken` says which
  // job ids exist).
  static std::string job_id_for(const std::string& request_id, const std::function<bool(const std::string&)>& taken);

  void add(const std::string& request_id, const std::string& job_id, const RequestDigest& digest);
  void remove(const std::string& request_id, const std::string& job_id);
  size_t jobs_of(const std::string& request_id) const;

 private:
  struct Entry {
    std::string job_id;
    RequestDigest digest;
  };
  std::map<std::string, std::vector<Entry>> by_id_;  // oldest first
};

const char* decision_name(RequestIds::Decision::What what);  // "fresh", "joined", "new_content", "rerun"

}  // namespace cuzk::engine
