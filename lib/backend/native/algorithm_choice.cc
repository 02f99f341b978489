#include "lib/backend/native/algorithm_choice.h"

#include <algorithm>
#include <cstdlib>

namespace commbench {
namespace native {

std::string ChooseAlgorithm(Transport transport, const OpRequest& request, int group_size) {
  const size_t bytes = request.count * SizeOf(request.dtype);
  if (group_size <= 1) return "direct";
  if (transport == Transport::kShm) {
    // Shared memory: every rank reads its peers in place, so the fewest steps win. One-shot costs n-1 reads
    // of the whole vector per rank, which only pays while the vector is small.
    if (request.op == Collective::kAllreduce) return bytes <= 16 * 1024 ? "direct" : "twoshot";
    return "direct";
  }
  // Sockets: one-shot sends the whole vector to every peer; above a few KiB bandwidth-optimal schedules win.
  if (bytes <= 4 * 1024) return "direct";
  if (bytes <= 256 * 1024) return "hd";
  return "ring";
}

int PipelineChunks(const std::string& algo, const OpRequest& request, int ranks_on_host, int usable_cores) {
  if (algo != "twoshot" || ranks_on_host > usable_cores) return 1;
  size_t chunk = kPipelineChunkBytes;
  if (const char* env = std::getenv("COMMBENCH_NATIVE_CHUNK_BYTES")) chunk = std::strtoull(env, nullptr, 10);
  const size_t bytes = request.count * SizeOf(request.dtype);
  if (chunk == 0 || bytes < 2 * chunk) return 1;
  return static_cast<int>(std::min<size_t>(bytes / chunk, 1024));
}

}  // namespace native
}  // namespace commbench
