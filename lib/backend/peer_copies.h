// Bytes a rank's own code copies out of its peers' memory: the native shared-memory transport counts each pull of
// a peer's region here (one line in shm_communicator.cc), and the measure loop reads the difference over the timed
// loop (docs/result-format.md, "Traffic"). Per thread: every rank is a thread of its own.
#pragma once

#include <cstddef>
#include <cstdint>

namespace commbench {

inline thread_local uint64_t t_peer_bytes_copied = 0;

// `pull` has `count` and `srcs` (each with a `rank`); the sources that are not `me` are what crossed ranks.
template <typename Pull>
inline void CountPeerCopies(const Pull& pull, int me, size_t element_size) {
  for (const auto& src : pull.srcs) {
    if (src.rank != me) t_peer_bytes_copied += pull.count * element_size;
  }
}

}  // namespace commbench
