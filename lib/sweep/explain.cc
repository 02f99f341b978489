#include "lib/sweep/explain.h"

#include <algorithm>
#include <iterator>
#include <numeric>

namespace commbench {
namespace {

template <typename T>
bool Has(const std::vector<T>& values, const T& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// The factors in the order they are recorded; the reasons in the order they are printed.
struct Factors {
  SweepSpec::ExplainFactor sync, pin, cpus, stream, h2d, concurrency;
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

// Pageable vs pinned host memory for the per-iteration copy (the stream unchanged).
void AddH2ds(const SweepSpec& spec, bool gpu, Factors* f) {
  if (!gpu || !Has(spec.h2ds, H2dKind::kPageable) || Has(spec.h2ds, H2dKind::kPinned)) return;
  f->h2d.h2ds.push_back(H2dKind::kPinned);
  f->reasons.push_back("--h2d pinned: the A/B for pageable host-to-device copies");
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

// The point with the factor's values (one per axis) in place of its own.
Point WithFactor(Point p, const SweepSpec::ExplainFactor& f) {
  if (!f.syncs.empty()) p.sync = f.syncs.front();
  if (!f.pins.empty()) p.pin = f.pins.front();
  if (!f.cpus.empty()) p.cpus = f.cpus.front();
  if (!f.concurrencies.empty()) p.concurrency = f.concurrencies.front();
  if (p.gpu_backend() && !f.streams.empty()) p.gpu.stream = f.streams.front();
  if (p.gpu_backend() && !f.h2ds.empty()) p.gpu.h2d = f.h2ds.front();
  return p;
}

// A one-series spec: the axis values the series' points take, so that the Add* functions above read it.
SweepSpec SeriesSpec(const std::vector<Point>& series) {
  SweepSpec s;
  const Point& p = series.front();
  s.syncs = {p.sync};
  s.pins = {p.pin};
  s.cpus = {p.cpus};
  s.streams = {p.gpu.stream};
  s.h2ds = {p.gpu.h2d};
  s.concurrencies = {p.concurrency};
  s.groups.clear();
  for (const Point& q : series) s.groups.push_back(q.groups);
  return s;
}

// Indices of at most `max` of `n` points (all when 0): the first, the last and evenly spaced ones between.
std::vector<size_t> SpreadIndices(size_t n, size_t max) {
  std::vector<size_t> all(n);
  std::iota(all.begin(), all.end(), size_t{0});
  if (max == 0 || n <= max) return all;
  if (max == 1) return {n - 1};
  std::vector<size_t> out;
  for (size_t i = 0; i < max; ++i) {
    size_t index = (i * (n - 1) + (max - 1) / 2) / (max - 1);  // rounded to the nearest
    if (out.empty() || out.back() != index) out.push_back(index);
  }
  return out;
}

struct Context {
  bool gpu = false;
  std::string affinity;
};

// Each axis an A/B can vary, the factor that holds its B values and the function that finds them. Keyed by the
// axis, not the rule: the rule says which axes its A/B varies (Suspect::factor_axes).
struct AxisFactor {
  const char* axis;
  SweepSpec::ExplainFactor Factors::*factor;
  void (*add)(const SweepSpec&, const Context&, Factors*);
};

const AxisFactor kAxisFactors[] = {
    {"sync", &Factors::sync, [](const SweepSpec& s, const Context& c, Factors* f) { AddSyncs(s, c.gpu, f); }},
    {"stream", &Factors::stream, [](const SweepSpec& s, const Context& c, Factors* f) { AddStreams(s, c.gpu, f); }},
    {"h2d", &Factors::h2d, [](const SweepSpec& s, const Context& c, Factors* f) { AddH2ds(s, c.gpu, f); }},
    {"cpus", &Factors::cpus, [](const SweepSpec& s, const Context& c, Factors* f) { AddCpus(s, c.affinity, f); }},
    {"pin", &Factors::pin, [](const SweepSpec& s, const Context&, Factors* f) { AddPin(s, f); }},
    {"concurrency", &Factors::concurrency,
     [](const SweepSpec& s, const Context&, Factors* f) { AddConcurrency(s, f); }},
};

// The first of the rule's axes this file can vary.
const AxisFactor* FactorFor(const std::vector<std::string>& axes) {
  for (const std::string& axis : axes) {
    for (const AxisFactor& a : kAxisFactors) {
      if (axis == a.axis) return &a;
    }
  }
  return nullptr;
}

std::string Join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : separator) + part;
  return out;
}

}  // namespace

std::vector<std::string> AxesWithAb() {
  std::vector<std::string> axes;
  for (const AxisFactor& a : kAxisFactors) axes.push_back(a.axis);
  return axes;
}

std::optional<TargetedAb> AbForSuspect(const Suspect& suspect, const TargetedAbOptions& options) {
  if (suspect.series.empty()) return std::nullopt;
  const AxisFactor* cause = FactorFor(suspect.factor_axes);
  if (cause == nullptr) return std::nullopt;
  std::vector<Point> series = suspect.series;
  std::stable_sort(series.begin(), series.end(), [](const Point& a, const Point& b) { return a.groups < b.groups; });
  Factors found;
  cause->add(SeriesSpec(series), Context{series.front().gpu_backend(), options.affinity}, &found);
  TargetedAb ab{suspect.rule, found.*(cause->factor), Join(found.reasons, "; "), {}, {}};
  if (ab.factor.empty()) return std::nullopt;
  for (size_t i : SpreadIndices(series.size(), options.max_group_counts)) {
    ab.points.push_back(WithFactor(series[i], ab.factor));
    ab.a_points.push_back(series[i]);
  }
  return ab;
}

ExplainExpansion ExpandForExplain(const SweepSpec& spec, const std::vector<BackendCapabilities>& backends,
                                  const std::string& affinity) {
  const bool gpu = std::any_of(backends.begin(), backends.end(),
                               [](const BackendCapabilities& c) { return c.device == DeviceKind::kGpu; });
  Factors f;
  AddSyncs(spec, gpu, &f);
  AddStreams(spec, gpu, &f);
  AddH2ds(spec, gpu, &f);
  AddCpus(spec, affinity, &f);
  AddConcurrency(spec, &f);
  AddPin(spec, &f);
  ExplainExpansion out{spec, std::move(f.reasons)};
  for (const auto* factor : {&f.sync, &f.pin, &f.cpus, &f.stream, &f.h2d, &f.concurrency}) {
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
