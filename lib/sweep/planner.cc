#include "lib/sweep/planner.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>

#include "lib/core/ranges.h"

namespace commbench {

OpRequest RequestOf(const Point& p) {
  OpRequest r;
  r.op = p.op;
  r.dtype = p.dtype;
  r.reduce = p.reduce;
  r.count = p.count;
  r.algo = p.algo;
  r.in_place = p.in_place;
  r.gpu = p.gpu;
  r.gpu.sync = IsGpuOnly(p.sync) ? p.sync : Sync::kNone;
  if (p.concurrency == Concurrency::kSequential) r.concurrent_ranks = p.group_size;  // one group at a time
  return r;
}

Status ValidateSpec(const SweepSpec& spec) {
  for (const auto& op : spec.ops) RETURN_IF_ERROR(ParseCollective(op).status());
  for (const auto& t : spec.dtypes) RETURN_IF_ERROR(ParseDataType(t).status());
  for (const auto& r : spec.reduces) RETURN_IF_ERROR(ParseReduceOp(r).status());
  for (const auto& c : spec.cpus) {
    if (!c.empty()) RETURN_IF_ERROR(ParseCpuList(c, "--cpus").status());
  }
  if (spec.iters < 0)
    return InvalidArgument("--iters: invalid value " + std::to_string(spec.iters) +
                           " (accepted: 0 for adaptive, or >= 2)");
  if (spec.iters == 1)
    return InvalidArgument(
        "--iters: invalid value 1 (accepted: 0 for adaptive, or >= 2: the first and last are both checked)");
  // A warm-up longer than the longest timed loop would only look like a hang (the timeout names no progress).
  if (spec.warmup < 0 || spec.warmup > spec.max_iters) {
    return InvalidArgument("--warmup: invalid value " + std::to_string(spec.warmup) + " (accepted: 0 to --max-iters, " +
                           std::to_string(spec.max_iters) + ")");
  }
  if (!(spec.time_budget_s > 0 && spec.time_budget_s <= 3600)) {
    return InvalidArgument("--time-budget: invalid value " + std::to_string(spec.time_budget_s) +
                           " (accepted: 0 < seconds <= 3600)");
  }
  if (!(spec.check_rate >= 0 && spec.check_rate <= 1)) {
    return InvalidArgument(
        "--check-rate: invalid value " + std::to_string(spec.check_rate) +
        " (accepted: 0 to 1, the share of the middle timed iterations checked; e.g. 0.004, or 1 for all)");
  }
  for (const auto& [bytes, seconds] : spec.time_budget_above) {
    if (!(seconds > 0 && seconds <= 3600)) {
      return InvalidArgument("--time-budget-above: invalid value " + std::to_string(seconds) + " s for " +
                             std::to_string(bytes) + " B (accepted: seconds above 0 and at most 3600)");
    }
  }
  if (!(spec.target_ci > 0 && spec.target_ci < 1)) {
    return InvalidArgument("--target-ci: invalid value " + std::to_string(spec.target_ci) +
                           " (accepted: a fraction between 0 and 1, e.g. 0.05)");
  }
  if (!(spec.timeout_s > 0))
    return InvalidArgument("--timeout: invalid value " + std::to_string(spec.timeout_s) + " (accepted: seconds > 0)");
  if (spec.min_iters < 2 || spec.max_iters < spec.min_iters) {
    return InvalidArgument("--min-iters/--max-iters: invalid pair " + std::to_string(spec.min_iters) + "/" +
                           std::to_string(spec.max_iters) + " (accepted: 2 <= min <= max)");
  }
  for (int64_t g : spec.groups) {
    for (int64_t k : spec.group_sizes) {
      if (g * k > spec.max_world) {
        return InvalidArgument("--groups " + std::to_string(g) + " x --group-size " + std::to_string(k) +
                               " = world of " + std::to_string(g * k) + " ranks exceeds the limit of " +
                               std::to_string(spec.max_world) + " (accepted: world <= --max-world)");
      }
    }
  }
  const auto rank_colon_number = [](const std::string& v) {
    auto colon = v.find(':');
    return colon != std::string::npos && colon > 0 && v.find(':', colon + 1) == std::string::npos &&
           v.find_first_not_of("0123456789:") == std::string::npos && colon + 1 < v.size();
  };
  if (spec.sample_cap < 0) {
    return InvalidArgument("--sample-cap: invalid value " + std::to_string(spec.sample_cap) +
                           " (accepted: 0 or more raw samples kept per rank)");
  }
  if (spec.repeats < 1 || spec.repeats > 1000) {
    return InvalidArgument("--repeats: invalid value " + std::to_string(spec.repeats) +
                           " (accepted: 1 to 1000 fresh launches per point)");
  }
  if (!(spec.test_only_uniform_slowdown >= 0 && spec.test_only_uniform_slowdown <= 10)) {
    return InvalidArgument("--test-only-uniform-slowdown: invalid value " +
                           std::to_string(spec.test_only_uniform_slowdown) +
                           " (accepted: a fraction from 0 to 10, e.g. 0.05 for 5 %)");
  }
  if (!spec.test_only_slow_rank.empty() && !rank_colon_number(spec.test_only_slow_rank)) {
    return InvalidArgument("--test-only-slow-rank: invalid value '" + spec.test_only_slow_rank +
                           "' (accepted: RANK:MICROSECONDS, e.g. 3:200)");
  }
  if (!spec.test_only_late_rank.empty() && !rank_colon_number(spec.test_only_late_rank)) {
    return InvalidArgument("--test-only-late-rank: invalid value '" + spec.test_only_late_rank +
                           "' (accepted: RANK:MICROSECONDS, e.g. 3:2000)");
  }
  if (!spec.test_only_hang_rank.empty() &&
      (!rank_colon_number(spec.test_only_hang_rank) ||
       spec.test_only_hang_rank.substr(spec.test_only_hang_rank.find(':') + 1).find_first_not_of('0') ==
           std::string::npos)) {
    return InvalidArgument("--test-only-hang-rank: invalid value '" + spec.test_only_hang_rank +
                           "' (accepted: RANK:ITER with ITER >= 1, e.g. 1:5)");
  }
  return OkStatus();
}

namespace {

// Replaces every point by one copy per value of an axis: the sweep is the product of its axes.
template <typename T, typename Setter>
void Expand(std::vector<Point>* points, const std::vector<T>& values, Setter set) {
  std::vector<Point> out;
  out.reserve(points->size() * values.size());
  for (const auto& p : *points) {
    for (const auto& v : values) {
      Point q = p;
      set(q, v);
      out.push_back(std::move(q));
    }
  }
  *points = std::move(out);
}

// The candidate points of one backend, before asking it what it supports. Groups vary fastest, so that each
// growth series is contiguous.
std::vector<Point> Candidates(const SweepSpec& spec, const std::string& backend, DeviceKind device) {
  std::vector<Point> points(1);
  points[0].backend = backend;
  points[0].device = device;
  Expand(&points, spec.ops, [](Point& p, const std::string& v) { p.op = *ParseCollective(v); });
  Expand(&points, spec.algos, [](Point& p, const std::string& v) { p.algo = v; });
  Expand(&points, spec.dtypes, [](Point& p, const std::string& v) { p.dtype = *ParseDataType(v); });
  Expand(&points, spec.reduces, [](Point& p, const std::string& v) { p.reduce = *ParseReduceOp(v); });
  Expand(&points, spec.group_sizes, [](Point& p, int64_t v) { p.group_size = static_cast<int>(v); });
  Expand(&points, spec.sizes, [](Point& p, uint64_t v) { p.bytes = v; });
  Expand(&points, spec.syncs, [](Point& p, Sync v) { p.sync = v; });
  Expand(&points, spec.concurrencies, [](Point& p, Concurrency v) { p.concurrency = v; });
  if (device == DeviceKind::kGpu) {
    Expand(&points, spec.streams, [](Point& p, StreamKind v) { p.gpu.stream = v; });
    Expand(&points, spec.h2ds, [](Point& p, H2dKind v) { p.gpu.h2d = v; });
    Expand(&points, spec.graphs, [](Point& p, bool v) { p.gpu.graph = v; });
    for (auto& p : points) p.gpu.h2d_bytes = spec.h2d_bytes;
  }
  Expand(&points, spec.ranks_per_process, [](Point& p, int64_t v) { p.ranks_per_process = static_cast<int>(v); });
  Expand(&points, spec.pins, [](Point& p, Pin v) { p.pin = v; });
  Expand(&points, spec.cpus, [](Point& p, const std::string& v) { p.cpus = v; });
  Expand(&points, spec.groups, [](Point& p, int64_t v) { p.groups = static_cast<int>(v); });
  // Allgather takes no reduction: keep one copy of it, under the first --reduce value.
  const ReduceOp first_reduce = *ParseReduceOp(spec.reduces.front());
  points.erase(std::remove_if(points.begin(), points.end(),
                              [&](const Point& p) { return !IsReduction(p.op) && p.reduce != first_reduce; }),
               points.end());
  return points;
}

template <typename T>
bool Contains(const std::vector<T>& values, const T& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// Whether a point takes one of the values a factor added (stream and h2d exist on GPU points only).
bool Uses(const SweepSpec::ExplainFactor& f, const Point& p) {
  return Contains(f.syncs, p.sync) || Contains(f.pins, p.pin) || Contains(f.cpus, p.cpus) ||
         Contains(f.concurrencies, p.concurrency) ||
         (p.gpu_backend() && (Contains(f.streams, p.gpu.stream) || Contains(f.h2ds, p.gpu.h2d)));
}

// --explain varies one factor at a time: a point may take the added values of one factor, not of two.
bool AtMostOneExplainFactor(const SweepSpec& spec, const Point& p) {
  int used = 0;
  for (const auto& factor : spec.explain_factors) used += Uses(factor, p) ? 1 : 0;
  return used <= 1;
}

// Sizes become whole elements: the allreduce buffer, or per-rank blocks of the gathered/scattered buffer.
// Returns false when not even one element per rank fits.
bool RoundToElements(Point* p) {
  size_t type_size = SizeOf(p->dtype);
  size_t elements = p->bytes / type_size;
  p->count = p->op == Collective::kAllreduce ? elements : elements / static_cast<size_t>(p->group_size);
  size_t total = p->op == Collective::kAllreduce ? p->count : p->count * static_cast<size_t>(p->group_size);
  p->bytes = total * type_size;
  return p->count > 0;
}

// Asks the backend; with --in-place auto, out of place first, else in place.
Status ChoosePlacement(const BackendDescription& backend, InPlace in_place, Point* p) {
  std::vector<bool> placements = in_place == InPlace::kYes  ? std::vector<bool>{true}
                                 : in_place == InPlace::kNo ? std::vector<bool>{false}
                                                            : std::vector<bool>{false, true};
  Status why;
  for (bool placement : placements) {
    p->in_place = placement;
    why = backend.supports(RequestOf(*p), p->group_size);
    if (why.ok()) return why;
  }
  return why;
}

bool KnownAlgorithm(const BackendDescription& backend, const Point& p) {
  bool known = p.algo == "auto";
  for (const auto& a : backend.algorithms) known = known || (a.op == p.op && a.name == p.algo);
  return known;
}

class Planner {
 public:
  explicit Planner(const SweepSpec& spec) : spec_(spec) {}

  void AddBackend(const BackendDescription& backend) {
    if (!backend.available.ok()) {
      Skip(backend.name, "unavailable: " + backend.available.message());
      return;
    }
    const auto& launcher = backend.capabilities.launcher;
    if (launcher.has_value() && *launcher != spec_.launcher) {
      Skip(backend.name, "its ranks must be started with --launcher " + std::string(Name(*launcher)));
      return;
    }
    for (Point& p : Candidates(spec_, backend.name, backend.capabilities.device)) {
      p.transport = backend.capabilities.transport;
      if (AtMostOneExplainFactor(spec_, p) && Admit(backend, &p)) AddPoint(p);
    }
  }

  // Points chosen one by one: each is admitted as in the product, without the one-factor filter.
  void AddPoints(const BackendDescription& backend, const std::vector<Point>& points) {
    for (Point p : points) {
      if (p.backend != backend.name) continue;
      p.transport = backend.capabilities.transport;
      if (Admit(backend, &p)) AddPoint(p);
    }
  }

  StatusOr<Plan> Finish() {
    for (auto& entry : launches_) plan_.launches.push_back(std::move(entry.second));
    if (plan_.point_count() == 0) {
      const auto& skipped = plan_.skipped;
      std::string why = skipped.empty() ? "" : " (" + skipped.front().what + ": " + skipped.front().reason + ")";
      return InvalidArgument("the sweep has no point that any backend can run" + why);
    }
    return std::move(plan_);
  }

 private:
  void Skip(const std::string& what, const std::string& reason) {
    for (const auto& s : plan_.skipped) {
      if (s.what == what && s.reason == reason) return;  // the product repeats skips: note each once
    }
    plan_.skipped.push_back({what, reason});
  }

  // True when the backend runs the point (rounded to whole elements, with its placement); else notes why not.
  bool Admit(const BackendDescription& backend, Point* p) {
    const std::string& name = backend.name;
    const std::string op(Name(p->op));
    if (!KnownAlgorithm(backend, *p)) {
      Skip(name + " " + op + " --algos " + p->algo, name + " has no " + op + " algorithm '" + p->algo + "'");
      return false;
    }
    if (!p->gpu_backend() && IsGpuOnly(p->sync)) {
      Skip(name + " --sync " + std::string(Name(p->sync)), "applies to GPU backends only");
      return false;
    }
    uint64_t asked = p->bytes;
    if (!RoundToElements(p)) {
      Skip(name + " " + op + " " + std::to_string(asked) + " B", "holds less than one " + std::string(Name(p->dtype)) +
                                                                     " element per rank for group size " +
                                                                     std::to_string(p->group_size));
      return false;
    }
    Status why = ChoosePlacement(backend, spec_.in_place, p);
    if (!why.ok()) {
      Skip(name + " " + op + " " + std::string(Name(p->dtype)), why.message());
      return false;
    }
    if (p->ranks_per_process > 1 && backend.capabilities.one_rank_per_process) {
      Skip(name + " --ranks-per-process " + std::to_string(p->ranks_per_process),
           "each " + name + " rank is a process of its own");
      return false;
    }
    return true;
  }

  void AddPoint(const Point& p) {
    // Launches run in the order of this key; the pin by its name, as when pins were strings.
    Launch& launch = launches_[std::make_tuple(p.world(), p.ranks_per_process, Name(p.pin), p.cpus)];
    launch.world = p.world();
    launch.ranks_per_process = p.ranks_per_process;
    launch.pin = p.pin;
    launch.cpus = p.cpus;
    launch.points.push_back(p);
  }

  const SweepSpec& spec_;
  Plan plan_;
  std::map<std::tuple<int, int, std::string_view, std::string>, Launch> launches_;
};

}  // namespace

StatusOr<Plan> PlanSweep(const SweepSpec& spec, const std::vector<BackendDescription>& backends) {
  RETURN_IF_ERROR(ValidateSpec(spec));
  Planner planner(spec);
  for (const auto& name : spec.backends) {
    auto it =
        std::find_if(backends.begin(), backends.end(), [&](const BackendDescription& b) { return b.name == name; });
    if (it == backends.end()) return InvalidArgument("--backends: unknown backend '" + name + "'");
    planner.AddBackend(*it);
  }
  return planner.Finish();
}

StatusOr<Plan> PlanPoints(const SweepSpec& spec, const std::vector<Point>& points,
                          const std::vector<BackendDescription>& backends) {
  RETURN_IF_ERROR(ValidateSpec(spec));
  Planner planner(spec);
  for (const Point& p : points) {
    auto it = std::find_if(backends.begin(), backends.end(),
                           [&](const BackendDescription& b) { return b.name == p.backend; });
    if (it == backends.end()) return InvalidArgument("--backends: unknown backend '" + p.backend + "'");
  }
  for (const auto& backend : backends) planner.AddPoints(backend, points);
  return planner.Finish();
}

}  // namespace commbench
