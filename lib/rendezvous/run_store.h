// One run's namespace in a rendezvous store that many runs may share (`--rendezvous file:/shared/dir` or
// `redis://host:port`): every key of the run lives under it, so that two runs on one Redis or one directory
// never see each other's keys, and Remove() leaves the store as the run found it.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "lib/core/status.h"
#include "lib/rendezvous/store.h"

namespace commbench {

class RunStore {
 public:
  virtual ~RunStore() = default;
  // Keys are relative to the run's namespace.
  virtual Store* store() = 0;
  // Where the namespace is, without any password ("redis://host:6379 commbench/RUN", "file:/dir/commbench-RUN").
  virtual std::string Describe() const = 0;
  // Deletes every key of the run (the directory for file:, the prefix for redis://).
  virtual Status Remove() = 0;
};

// `run_id` may hold any characters; what is not [A-Za-z0-9._-] becomes '_' in names. InvalidArgument names a bad
// URL (its password masked) and the accepted forms; Unavailable when the store cannot be reached in time.
StatusOr<std::unique_ptr<RunStore>> OpenRunStore(const std::string& url, const std::string& run_id,
                                                 std::chrono::milliseconds connect_timeout);

}  // namespace commbench
