// What `--algos auto` runs: by transport, collective, message size and rank count (bench/archive.md has the
// measurements behind the thresholds).
#pragma once

#include <string>

#include "lib/backend/backend.h"

namespace commbench {
namespace native {

enum class Transport { kShm, kTcp };

std::string ChooseAlgorithm(Transport transport, const OpRequest& request, int group_size);

// Pipeline depth (Problem::chunks) for `algo` over shm: twoshot cuts vectors of at least two chunks of
// kPipelineChunkBytes into chunks of about that size, when every rank of the host has a core of its own (with
// more ranks than cores each extra step is an extra wait for a descheduled peer). 1 otherwise.
// Off by default (0): on the 2-core VM, 4 MiB and 1 MiB chunks measured slower than one chunk at 16 and 64 MiB
// (bench/archive.md, "Native collectives against the memory roofline"). COMMBENCH_NATIVE_CHUNK_BYTES sets the
// chunk size, for experiments.
constexpr size_t kPipelineChunkBytes = 0;
int PipelineChunks(const std::string& algo, const OpRequest& request, int ranks_on_host, int usable_cores);

}  // namespace native
}  // namespace commbench
