#include "lib/sweep/explain.h"

#include <algorithm>

namespace commbench {
namespace {

template <typename T>
bool Has(const std::vector<T>& values, const T& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// The factors in the order they are recorded; the reasons in the order they are printed.
struct Factors {
  SweepSpec::ExplainFactor sync, pin, cpus, stream, concurrency;
  std::vector<std::string> reasons;
};

void AddSyncs(const SweepSpec& spec, bool gpu, Factors* f) {
  // Barrier on vs off.
  if (Has(spec.syncs, Sync::kWorldBarrier) && !Has(spec.syncs, Sync::kNone)) {
    f->sync.syncs.push_back(Sync::kNone);
    f->reasons.push_back("--sync none: the A/B for a world-wide barrier per iteration");
  }
  // Host sync per iteration vs an event the next iteration waits on.
  if (gpu && (Has(spec.syncs, Sync::kStream) || Has(spec.syncs, Sync::kDevice)) && !Has(spec.syncs, Sync::kEvent) &&
      !Has(spec.syncs, Sync::kNone)) {
    f->sync.syncs.push_back(Sync::kEvent);
    f->reasons.push_back("--sync event: the A/B for a host sync every iteration");
  }
}

// Legacy default stream vs a dedicated stream with pinned memory.
void AddStreams(const SweepSpec& spec, bool gpu, Factors* f) {
  if (!gpu || !Has(spec.streams, StreamKind::kLegacyDefault) || Has(spec.streams, StreamKind::kDedicated)) return;
  f->stream.streams.push_back(StreamKind::kDedicated);
  // The stream alone: a partner that also changed the copy (h2d) would confirm the combination, not the stream.
  f->reasons.push_back("--stream dedicated: the A/B for legacy-default-stream serialisation");
}

// Oversubscription: the same points with fewer cores shows whether the slope depends on cores; with all cores
// when only a restricted set was asked for.
void AddCpus(const SweepSpec& spec, const std::string& all, Factors* f) {
  auto unrestricted = [&all](const std::string& c) { return c.empty() || c == all; };
  bool any_unrestricted = spec.cpus.empty() || std::any_of(spec.cpus.begin(), spec.cpus.end(), unrestricted);
  bool any_restricted =
      std::any_of(spec.cpus.begin(), spec.cpus.end(), [&](const std::string& c) { return !unrestricted(c); });
  bool multi_core = !all.empty() && all != "0";
  if (any_unrestricted && !any_restricted && multi_core) {
    f->cpus.cpus.push_back("0");
    f->reasons.push_back("--cpus 0: the A/B for CPU oversubscription (one core vs " + all + ")");
  } else if (any_restricted && !any_unrestricted && !all.empty()) {
    f->cpus.cpus.push_back(all);
    f->reasons.push_back("--cpus " + all + ": the A/B for CPU oversubscription (all cores)");
  }
}

// Shared bandwidth: the same points with the groups taking turns (two or more group counts: groups can share).
void AddConcurrency(const SweepSpec& spec, Factors* f) {
  const auto& c = spec.concurrencies;
  if (spec.groups.size() >= 2 && (c.empty() || Has(c, Concurrency::kConcurrent)) && !Has(c, Concurrency::kSequential)) {
    f->concurrency.concurrencies.push_back(Concurrency::kSequential);
    f->reasons.push_back("--concurrency sequential: the A/B for groups sharing one bandwidth (groups take turns)");
  }
}

// Pinning: oversubscription and wake-up latency both change when ranks stop migrating.
void AddPin(const SweepSpec& spec, Factors* f) {
  if (std::all_of(spec.pins.begin(), spec.pins.end(), [](Pin p) { return p == Pin::kNone; })) {
    f->pin.pins.push_back(Pin::kCompact);
    f->reasons.push_back("--pin compact: the A/B for wake-up latency and migrations");
  }
}

template <typename T>
void Append(std::vector<T>* axis, const std::vector<T>& values) {
  axis->insert(axis->end(), values.begin(), values.end());
}

}  // namespace

ExplainExpansion ExpandForExplain(const SweepSpec& spec, const std::vector<BackendCapabilities>& backends,
                                  const std::string& affinity) {
  const bool gpu = std::any_of(backends.begin(), backends.end(),
                               [](const BackendCapabilities& c) { return c.device == DeviceKind::kGpu; });
  Factors f;
  AddSyncs(spec, gpu, &f);
  AddStreams(spec, gpu, &f);
  AddCpus(spec, affinity, &f);
  AddConcurrency(spec, &f);
  AddPin(spec, &f);
  ExplainExpansion out{spec, std::move(f.reasons)};
  for (const auto* factor : {&f.sync, &f.pin, &f.cpus, &f.stream, &f.concurrency}) {
    if (factor->empty()) continue;
    Append(&out.spec.syncs, factor->syncs);
    Append(&out.spec.pins, factor->pins);
    Append(&out.spec.cpus, factor->cpus);
    Append(&out.spec.streams, factor->streams);
    Append(&out.spec.h2ds, factor->h2ds);
    Append(&out.spec.concurrencies, factor->concurrencies);
    out.spec.explain_factors.push_back(*factor);
  }
  return out;
}

}  // namespace commbench
