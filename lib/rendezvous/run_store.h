// One run's namespace in a rendezvous store that many runs may share (`--rendezvous file:/shared/dir` or
// `redis://host:port`): every key of the run lives under it, so that two runs on one Redis or one directory
// never see each other's keys, and Remove() leaves the store as the run found it.
//
// Who holds a run id: rank 0 claims it (Claim) by an exclusive create of an owner record {host, boot id, pid,
// the pid's start time, start time, world, a fresh nonce} and refreshes it every kRunHeartbeat; every key of
// the run then lives under the nonce, so what a crashed run left never mixes with the next run of the same id.
// An owner is stale when its heartbeat is older than kRunStaleAfter, or when its process is gone on this host
// (same host name and boot id, pid dead or reused): a new rank 0 takes a stale run id over and removes what the
// stale run left. A live owner refuses the claim: "run id ID in use ...".
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "lib/core/status.h"
#include "lib/rendezvous/store.h"

namespace commbench {

inline constexpr std::chrono::seconds kRunHeartbeat{5};
inline constexpr std::chrono::seconds kRunStaleAfter{90};
// Every Redis key of a run expires after this unless rank 0's heartbeat re-arms it (every kRedisKeyRearm).
inline constexpr std::chrono::minutes kRedisKeyTtl{60};
inline constexpr std::chrono::minutes kRedisKeyRearm{10};

class RunStore {
 public:
  virtual ~RunStore() = default;
  // Keys are relative to the run's namespace (under the owner's nonce after Claim or Join).
  virtual Store* store() = 0;
  // Where the namespace is, without any password ("redis://host:6379 commbench/RUN", "file:/dir/commbench-RUN").
  virtual std::string Describe() const = 0;
  // Rank 0: claims the run id for a run of `world` ranks (above). Unavailable "run id ID in use ..." when
  // another live run holds it, naming that run's rank 0 and the command that clears the id.
  virtual Status Claim(int world) = 0;
  // The other ranks (and rank 0's second connection): waits up to `timeout` for a live owner of `world` ranks
  // and enters its namespace. DeadlineExceeded when none came (naming a stale owner and how to clear it);
  // Unavailable "run id ID in use ..." when the live owner runs another world.
  virtual Status Join(int world, std::chrono::milliseconds timeout) = 0;
  // After Join: true when a new owner replaced the one joined (its rank 0 took a stale run id over) and this
  // store now points at the new namespace: what was posted must be posted again.
  virtual bool FollowNewOwner() = 0;
  // Deletes every key of the run (the directory for file:, the prefix for redis://) when this store claimed it
  // (only its own namespace when another run has since taken the id over), or opened it without claiming;
  // nothing after a refused Claim. After Join: nothing while the owner stands (it removes the run), else what
  // is left of the run's namespace. Either way store() writes nothing afterwards, so a late writer of this
  // process leaves no key.
  virtual Status Remove() = 0;
};

// `run_id` may hold any characters; what is not [A-Za-z0-9._-] becomes '_' in names. InvalidArgument names a bad
// URL (its password masked), a refused store directory (lib/rendezvous/file_store.h) and the accepted forms;
// Unavailable when the store cannot be reached in time.
StatusOr<std::unique_ptr<RunStore>> OpenRunStore(const std::string& url, const std::string& run_id,
                                                 std::chrono::milliseconds connect_timeout);

}  // namespace commbench
