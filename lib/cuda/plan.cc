#include "lib/cuda/plan.h"

#include <cstring>

namespace commbench::cuda {
namespace {

// The byte at `offset` of the H2D source. Mixing in offset>>8 makes a copy shifted by a multiple of 256 differ
// too (a plain offset%251 pattern would repeat).
unsigned char SourceByte(size_t offset) {
  return static_cast<unsigned char>((offset * 131 + (offset >> 8) * 7 + 17) % 251);
}

}  // namespace

StatusOr<GpuPlan> MakeGpuPlan(const GpuAxes& axes) {
  const GpuPlan& plan = axes;
  if (plan.graph && plan.stream == StreamKind::kLegacyDefault) {
    return InvalidArgument(
        "--graph with --stream legacy-default: CUDA cannot capture a graph on the legacy default stream");
  }
  if (plan.graph && plan.h2d == H2dKind::kPageable) {
    return InvalidArgument(
        "--graph with --h2d pageable: CUDA cannot capture a copy from pageable host memory (use pinned)");
  }
  return plan;
}

uint64_t EffectiveH2dBytes(const GpuPlan& plan, uint64_t message_bytes) {
  if (plan.h2d == H2dKind::kNone) return 0;
  return plan.h2d_bytes != 0 ? plan.h2d_bytes : message_bytes;
}

IterationSchedule ScheduleFor(Sync sync) {
  IterationSchedule s;
  switch (sync) {
    case Sync::kStream:
      s.stream_sync = true;
      break;
    case Sync::kEvent:
      s.wait_previous_event = true;
      s.record_done_event = true;
      break;
    case Sync::kDevice:
      s.device_sync = true;
      break;
    case Sync::kNone:
    case Sync::kGroupBarrier:
    case Sync::kWorldBarrier:
      break;
  }
  return s;
}

std::string Describe(const GpuPlan& plan) {
  std::string out = "stream=" + std::string(Name(plan.stream)) + " h2d=" + std::string(Name(plan.h2d));
  if (plan.h2d != H2dKind::kNone) out += ":" + (plan.h2d_bytes ? std::to_string(plan.h2d_bytes) : "auto");
  out += " sync=" + std::string(Name(plan.sync));
  out += plan.graph ? " graph=on" : " graph=off";
  return out;
}

void FillH2dSource(void* data, size_t bytes) {
  auto* p = static_cast<unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) p[i] = SourceByte(i);
}

Status CheckH2dCopy(const void* data, size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  size_t first = bytes;
  size_t bad = 0;
  for (size_t i = 0; i < bytes; ++i) {
    if (p[i] != SourceByte(i)) {
      if (bad == 0) first = i;
      ++bad;
    }
  }
  if (bad == 0) return OkStatus();
  return DataLoss("h2d copy: " + std::to_string(bad) + " of " + std::to_string(bytes) +
                  " bytes differ, first at offset " + std::to_string(first) + " (got " + std::to_string(p[first]) +
                  ", expected " + std::to_string(SourceByte(first)) + ")");
}

}  // namespace commbench::cuda
