#include "lib/cuda/plan.h"

#include <cstring>

#include "lib/core/name_table.h"

namespace commbench::cuda {
namespace {

constexpr NameTable<StreamKind, 3> kStreams{{
    {StreamKind::kLegacyDefault, "legacy-default"},
    {StreamKind::kPerThread, "per-thread"},
    {StreamKind::kDedicated, "dedicated"},
}};
constexpr NameTable<H2dKind, 3> kH2d{{
    {H2dKind::kNone, "none"},
    {H2dKind::kPageable, "pageable"},
    {H2dKind::kPinned, "pinned"},
}};
constexpr NameTable<SyncKind, 6> kSyncs{{
    {SyncKind::kStream, "stream"},
    {SyncKind::kEvent, "event"},
    {SyncKind::kDevice, "device"},
    {SyncKind::kNone, "none"},
    {SyncKind::kGroupBarrier, "group-barrier"},
    {SyncKind::kWorldBarrier, "world-barrier"},
}};

// The byte at `offset` of the H2D source. Mixing in offset>>8 makes a copy shifted by a multiple of 256 differ
// too (a plain offset%251 pattern would repeat).
unsigned char SourceByte(size_t offset) {
  return static_cast<unsigned char>((offset * 131 + (offset >> 8) * 7 + 17) % 251);
}

}  // namespace

std::string_view Name(StreamKind k) { return NameOf(kStreams, k); }
std::string_view Name(H2dKind k) { return NameOf(kH2d, k); }
std::string_view Name(SyncKind k) { return NameOf(kSyncs, k); }

StatusOr<StreamKind> ParseStreamKind(std::string_view s) { return ParseName(kStreams, s, "--stream: unknown value"); }
StatusOr<H2dKind> ParseH2dKind(std::string_view s) { return ParseName(kH2d, s, "--h2d: unknown value"); }
StatusOr<SyncKind> ParseSyncKind(std::string_view s) { return ParseName(kSyncs, s, "--sync: unknown value"); }

const std::vector<StreamKind>& AllStreamKinds() {
  static const auto* values = new std::vector<StreamKind>(ValuesOf(kStreams));
  return *values;
}
const std::vector<H2dKind>& AllH2dKinds() {
  static const auto* values = new std::vector<H2dKind>(ValuesOf(kH2d));
  return *values;
}
const std::vector<SyncKind>& AllSyncKinds() {
  static const auto* values = new std::vector<SyncKind>(ValuesOf(kSyncs));
  return *values;
}

bool IsGpuOnlySync(std::string_view sync) { return sync == "stream" || sync == "event" || sync == "device"; }

StatusOr<GpuPlan> MakeGpuPlan(const GpuAxes& axes) {
  GpuPlan plan;
  ASSIGN_OR_RETURN(plan.stream, ParseStreamKind(axes.stream));
  ASSIGN_OR_RETURN(plan.h2d, ParseH2dKind(axes.h2d));
  ASSIGN_OR_RETURN(plan.sync, ParseSyncKind(axes.sync));
  plan.h2d_bytes = axes.h2d_bytes;
  plan.graph = axes.graph;
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

IterationSchedule ScheduleFor(SyncKind sync) {
  IterationSchedule s;
  switch (sync) {
    case SyncKind::kStream:
      s.stream_sync = true;
      break;
    case SyncKind::kEvent:
      s.wait_previous_event = true;
      s.record_done_event = true;
      break;
    case SyncKind::kDevice:
      s.device_sync = true;
      break;
    case SyncKind::kNone:
    case SyncKind::kGroupBarrier:
    case SyncKind::kWorldBarrier:
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
