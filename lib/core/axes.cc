#include "lib/core/axes.h"

#include "lib/core/name_table.h"

namespace commbench {
namespace {

constexpr NameTable<Sync, 6> kSyncs{{
    {Sync::kNone, "none"},
    {Sync::kGroupBarrier, "group-barrier"},
    {Sync::kWorldBarrier, "world-barrier"},
    {Sync::kStream, "stream"},
    {Sync::kEvent, "event"},
    {Sync::kDevice, "device"},
}};
constexpr NameTable<Concurrency, 2> kConcurrencies{{
    {Concurrency::kConcurrent, "concurrent"},
    {Concurrency::kSequential, "sequential"},
}};
constexpr NameTable<Pin, 3> kPins{{
    {Pin::kNone, "none"},
    {Pin::kCompact, "compact"},
    {Pin::kSpread, "spread"},
}};
constexpr NameTable<InPlace, 3> kInPlaces{{
    {InPlace::kAuto, "auto"},
    {InPlace::kYes, "yes"},
    {InPlace::kNo, "no"},
}};
constexpr NameTable<Launcher, 3> kLaunchers{{
    {Launcher::kLocal, "local"},
    {Launcher::kMpirun, "mpirun"},
    {Launcher::kSrun, "srun"},
}};
constexpr NameTable<GroupBy, 3> kGroupBys{{
    {GroupBy::kConsecutive, "consecutive"},
    {GroupBy::kHost, "host"},
    {GroupBy::kSpread, "spread"},
}};
constexpr NameTable<StreamKind, 3> kStreams{{
    {StreamKind::kLegacyDefault, "legacy-default"},
    {StreamKind::kPerThread, "per-thread"},
    {StreamKind::kDedicated, "dedicated"},
}};
constexpr NameTable<H2dKind, 3> kH2ds{{
    {H2dKind::kNone, "none"},
    {H2dKind::kPageable, "pageable"},
    {H2dKind::kPinned, "pinned"},
}};
constexpr NameTable<Transport, 4> kTransports{{
    {Transport::kUnknown, "unknown"},
    {Transport::kSharedMemory, "shm"},
    {Transport::kTcp, "tcp"},
    {Transport::kDevice, "device"},
}};
constexpr NameTable<DeviceKind, 2> kDevices{{
    {DeviceKind::kCpu, "cpu"},
    {DeviceKind::kGpu, "gpu"},
}};
constexpr NameTable<bool, 2> kGraphs{{
    {false, "off"},
    {true, "on"},
}};

}  // namespace

std::string_view Name(Sync v) { return NameOf(kSyncs, v); }
std::string_view Name(Concurrency v) { return NameOf(kConcurrencies, v); }
std::string_view Name(Pin v) { return NameOf(kPins, v); }
std::string_view Name(InPlace v) { return NameOf(kInPlaces, v); }
std::string_view Name(Launcher v) { return NameOf(kLaunchers, v); }
std::string_view Name(GroupBy v) { return NameOf(kGroupBys, v); }
std::string_view Name(StreamKind v) { return NameOf(kStreams, v); }
std::string_view Name(H2dKind v) { return NameOf(kH2ds, v); }
std::string_view Name(DeviceKind v) { return NameOf(kDevices, v); }
std::string_view Name(Transport v) { return NameOf(kTransports, v); }
std::string_view GraphName(bool graph) { return NameOf(kGraphs, graph); }

StatusOr<Sync> ParseSync(std::string_view s, std::string_view what) { return ParseName(kSyncs, s, what); }
StatusOr<Concurrency> ParseConcurrency(std::string_view s, std::string_view what) {
  return ParseName(kConcurrencies, s, what);
}
StatusOr<Pin> ParsePin(std::string_view s, std::string_view what) { return ParseName(kPins, s, what); }
StatusOr<InPlace> ParseInPlace(std::string_view s, std::string_view what) { return ParseName(kInPlaces, s, what); }
StatusOr<Launcher> ParseLauncher(std::string_view s, std::string_view what) { return ParseName(kLaunchers, s, what); }
StatusOr<GroupBy> ParseGroupBy(std::string_view s, std::string_view what) { return ParseName(kGroupBys, s, what); }
StatusOr<StreamKind> ParseStreamKind(std::string_view s, std::string_view what) { return ParseName(kStreams, s, what); }
StatusOr<H2dKind> ParseH2dKind(std::string_view s, std::string_view what) { return ParseName(kH2ds, s, what); }
StatusOr<DeviceKind> ParseDeviceKind(std::string_view s, std::string_view what) { return ParseName(kDevices, s, what); }
StatusOr<Transport> ParseTransport(std::string_view s, std::string_view what) {
  return ParseName(kTransports, s, what);
}
StatusOr<bool> ParseGraph(std::string_view s, std::string_view what) { return ParseName(kGraphs, s, what); }

const std::vector<Sync>& AllSyncs() {
  static const auto* values = new std::vector<Sync>(ValuesOf(kSyncs));
  return *values;
}
const std::vector<StreamKind>& AllStreamKinds() {
  static const auto* values = new std::vector<StreamKind>(ValuesOf(kStreams));
  return *values;
}
const std::vector<H2dKind>& AllH2dKinds() {
  static const auto* values = new std::vector<H2dKind>(ValuesOf(kH2ds));
  return *values;
}

bool IsGpuOnly(Sync sync) { return sync == Sync::kStream || sync == Sync::kEvent || sync == Sync::kDevice; }

}  // namespace commbench
