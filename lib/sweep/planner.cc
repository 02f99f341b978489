#include "lib/sweep/planner.h"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include "lib/core/ranges.h"

namespace commbench {
namespace {

constexpr const char* kGpuSyncs[] = {"stream", "event", "device"};

bool Contains(const char* const* begin, const char* const* end, const std::string& v) {
  return std::find_if(begin, end, [&](const char* s) { return v == s; }) != end;
}
bool IsGpuSync(const std::string& s) { return Contains(std::begin(kGpuSyncs), std::end(kGpuSyncs), s); }

Status CheckNames(const std::vector<std::string>& values, std::initializer_list<const char*> accepted,
                  const std::string& flag) {
  for (const auto& v : values) {
    bool ok = false;
    std::string list;
    for (const char* a : accepted) {
      ok = ok || v == a;
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    if (!ok) return InvalidArgument(flag + ": unknown value '" + v + "' (accepted: " + list + ")");
  }
  return OkStatus();
}

}  // namespace

bool Point::gpu_backend() const { return backend == "nccl"; }

std::string Point::Id() const {
  std::string id = backend + "/" + std::string(Name(op)) + "/" + algo + "/" + std::string(Name(dtype)) + "/" +
                   std::string(Name(reduce)) + "/g" + std::to_string(groups) + "/k" + std::to_string(group_size) +
                   "/" + std::to_string(bytes) + "B";
  id += in_place ? "/in" : "/out";
  id += "/sync=" + sync;
  if (concurrency != "concurrent") id += "/" + concurrency;
  if (ranks_per_process != 1) id += "/rpp=" + std::to_string(ranks_per_process);
  if (pin != "none") id += "/pin=" + pin;
  if (!cpus.empty()) id += "/cpus=" + cpus;
  if (gpu_backend()) {
    id += "/stream=" + gpu.stream + "/h2d=" + gpu.h2d;
    if (gpu.graph) id += "/graph";
  }
  return id;
}

OpRequest Point::Request() const {
  OpRequest r;
  r.op = op;
  r.dtype = dtype;
  r.reduce = reduce;
  r.count = count;
  r.algo = algo;
  r.in_place = in_place;
  r.gpu = gpu;
  r.gpu.sync = IsGpuSync(sync) ? sync : "none";
  if (concurrency == "sequential") r.concurrent_ranks = group_size;  // one group at a time
  return r;
}

size_t Plan::point_count() const {
  size_t n = 0;
  for (const auto& l : launches) n += l.points.size();
  return n;
}

Status ValidateSpec(const SweepSpec& spec) {
  for (const auto& op : spec.ops) RETURN_IF_ERROR(ParseCollective(op).status());
  for (const auto& t : spec.dtypes) RETURN_IF_ERROR(ParseDataType(t).status());
  for (const auto& r : spec.reduces) RETURN_IF_ERROR(ParseReduceOp(r).status());
  for (const auto& b : spec.backends) RETURN_IF_ERROR(CreateBackend(b).status());
  RETURN_IF_ERROR(CheckNames({spec.in_place}, {"auto", "yes", "no"}, "--in-place"));
  RETURN_IF_ERROR(CheckNames(spec.syncs, {"none", "group-barrier", "world-barrier", "stream", "event", "device"},
                             "--sync"));
  RETURN_IF_ERROR(CheckNames(spec.pins, {"none", "compact", "spread"}, "--pin"));
  RETURN_IF_ERROR(CheckNames(spec.concurrencies, {"concurrent", "sequential"}, "--concurrency"));
  RETURN_IF_ERROR(CheckNames(spec.streams, {"legacy-default", "per-thread", "dedicated"}, "--stream"));
  RETURN_IF_ERROR(CheckNames(spec.h2ds, {"none", "pageable", "pinned"}, "--h2d"));
  RETURN_IF_ERROR(CheckNames(spec.graphs, {"off", "on"}, "--graph"));
  RETURN_IF_ERROR(CheckNames({spec.launcher}, {"local", "mpirun"}, "--launcher"));
  for (const auto& c : spec.cpus) {
    if (!c.empty()) RETURN_IF_ERROR(ParseCpuList(c, "--cpus").status());
  }
  if (spec.iters < 0) return InvalidArgument("--iters: invalid value " + std::to_string(spec.iters) + " (accepted: 0 for adaptive, or >= 2)");
  if (spec.iters == 1) return InvalidArgument("--iters: invalid value 1 (accepted: 0 for adaptive, or >= 2: the first and last are both checked)");
  if (spec.warmup < 0) return InvalidArgument("--warmup: invalid value " + std::to_string(spec.warmup) + " (accepted: >= 0)");
  if (!(spec.time_budget_s > 0 && spec.time_budget_s <= 3600)) {
    return InvalidArgument("--time-budget: invalid value " + std::to_string(spec.time_budget_s) + " (accepted: 0 < seconds <= 3600)");
  }
  if (!(spec.target_ci > 0 && spec.target_ci < 1)) {
    return InvalidArgument("--target-ci: invalid value " + std::to_string(spec.target_ci) + " (accepted: a fraction between 0 and 1, e.g. 0.05)");
  }
  if (!(spec.timeout_s > 0)) return InvalidArgument("--timeout: invalid value " + std::to_string(spec.timeout_s) + " (accepted: seconds > 0)");
  if (spec.min_iters < 2 || spec.max_iters < spec.min_iters) {
    return InvalidArgument("--min-iters/--max-iters: invalid pair " + std::to_string(spec.min_iters) + "/" +
                           std::to_string(spec.max_iters) + " (accepted: 2 <= min <= max)");
  }
  for (int64_t g : spec.groups) {
    for (int64_t k : spec.group_sizes) {
      if (g * k > spec.max_world) {
        return InvalidArgument("--groups " + std::to_string(g) + " x --group-size " + std::to_string(k) + " = world of " +
                               std::to_string(g * k) + " ranks exceeds the limit of " + std::to_string(spec.max_world) +
                               " (accepted: world <= --max-world)");
      }
    }
  }
  if (!spec.test_only_slow_rank.empty()) {
    auto colon = spec.test_only_slow_rank.find(':');
    bool ok = colon != std::string::npos && colon > 0 &&
              spec.test_only_slow_rank.find_first_not_of("0123456789:") == std::string::npos &&
              colon + 1 < spec.test_only_slow_rank.size();
    if (!ok) {
      return InvalidArgument("--test-only-slow-rank: invalid value '" + spec.test_only_slow_rank +
                             "' (accepted: RANK:MICROSECONDS, e.g. 3:200)");
    }
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
std::vector<Point> Candidates(const SweepSpec& spec, const std::string& backend, bool gpu) {
  std::vector<Point> points(1);
  points[0].backend = backend;
  Expand(&points, spec.ops, [](Point& p, const std::string& v) { p.op = *ParseCollective(v); });
  Expand(&points, spec.algos, [](Point& p, const std::string& v) { p.algo = v; });
  Expand(&points, spec.dtypes, [](Point& p, const std::string& v) { p.dtype = *ParseDataType(v); });
  Expand(&points, spec.reduces, [](Point& p, const std::string& v) { p.reduce = *ParseReduceOp(v); });
  Expand(&points, spec.group_sizes, [](Point& p, int64_t v) { p.group_size = static_cast<int>(v); });
  Expand(&points, spec.sizes, [](Point& p, uint64_t v) { p.bytes = v; });
  Expand(&points, spec.syncs, [](Point& p, const std::string& v) { p.sync = v; });
  Expand(&points, spec.concurrencies, [](Point& p, const std::string& v) { p.concurrency = v; });
  if (gpu) {
    Expand(&points, spec.streams, [](Point& p, const std::string& v) { p.gpu.stream = v; });
    Expand(&points, spec.h2ds, [](Point& p, const std::string& v) { p.gpu.h2d = v; });
    Expand(&points, spec.graphs, [](Point& p, const std::string& v) { p.gpu.graph = v == "on"; });
    for (auto& p : points) p.gpu.h2d_bytes = spec.h2d_bytes;
  }
  Expand(&points, spec.ranks_per_process, [](Point& p, int64_t v) { p.ranks_per_process = static_cast<int>(v); });
  Expand(&points, spec.pins, [](Point& p, const std::string& v) { p.pin = v; });
  Expand(&points, spec.cpus, [](Point& p, const std::string& v) { p.cpus = v; });
  Expand(&points, spec.groups, [](Point& p, int64_t v) { p.groups = static_cast<int>(v); });
  // Allgather takes no reduction: keep one copy of it, under the first --reduce value.
  points.erase(std::remove_if(points.begin(), points.end(),
                              [&](const Point& p) {
                                return !IsReduction(p.op) && Name(p.reduce) != spec.reduces.front();
                              }),
               points.end());
  return points;
}

// The value of one explain axis of a point ("" for an axis the point does not have).
std::string AxisValue(const Point& p, const std::string& axis) {
  if (axis == "sync") return p.sync;
  if (axis == "pin") return p.pin;
  if (axis == "cpus") return p.cpus;
  if (axis == "concurrency") return p.concurrency;
  if (axis == "stream") return p.gpu_backend() ? p.gpu.stream : "";
  if (axis == "h2d") return p.gpu_backend() ? p.gpu.h2d : "";
  return "";
}

// --explain varies one factor at a time: a point may take the added values of one factor, not of two.
bool AtMostOneExplainFactor(const SweepSpec& spec, const Point& p) {
  int used = 0;
  for (const auto& factor : spec.explain_factors) {
    bool uses = false;
    for (const auto& [axis, value] : factor.values) uses = uses || AxisValue(p, axis) == value;
    used += uses ? 1 : 0;
  }
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
Status ChoosePlacement(const Backend& backend, const std::string& in_place, Point* p) {
  std::vector<bool> placements = in_place == "yes" ? std::vector<bool>{true}
                                 : in_place == "no" ? std::vector<bool>{false}
                                                    : std::vector<bool>{false, true};
  Status why;
  for (bool placement : placements) {
    p->in_place = placement;
    why = backend.Supports(p->Request(), p->group_size);
    if (why.ok()) return why;
  }
  return why;
}

}  // namespace

StatusOr<Plan> PlanSweep(const SweepSpec& spec) {
  RETURN_IF_ERROR(ValidateSpec(spec));
  Plan plan;
  auto skip = [&](const std::string& what, const std::string& reason) {
    for (const auto& s : plan.skipped) {
      if (s.what == what && s.reason == reason) return;  // the product repeats skips: note each once
    }
    plan.skipped.push_back({what, reason});
  };
  std::map<std::tuple<int, int, std::string, std::string>, Launch> launches;
  for (const auto& backend_name : spec.backends) {
    ASSIGN_OR_RETURN(auto backend, CreateBackend(backend_name));
    Status available = backend->Available();
    if (!available.ok()) {
      skip(backend_name, "unavailable: " + available.message());
      continue;
    }
    const std::string launcher = backend->RequiredLauncher();
    if (!launcher.empty() && launcher != spec.launcher) {
      skip(backend_name, "its ranks must be started with --launcher " + launcher);
      continue;
    }
    const bool gpu = backend_name == "nccl";
    for (Point& p : Candidates(spec, backend_name, gpu)) {
      if (!AtMostOneExplainFactor(spec, p)) continue;
      bool known = p.algo == "auto";
      for (const auto& a : backend->Algorithms()) known = known || (a.op == p.op && a.name == p.algo);
      if (!known) {
        skip(backend_name + " " + std::string(Name(p.op)) + " --algos " + p.algo,
             backend_name + " has no " + std::string(Name(p.op)) + " algorithm '" + p.algo + "'");
        continue;
      }
      if (!gpu && IsGpuSync(p.sync)) {
        skip(backend_name + " --sync " + p.sync, "applies to GPU backends only");
        continue;
      }
      uint64_t asked = p.bytes;
      if (!RoundToElements(&p)) {
        skip(backend_name + " " + std::string(Name(p.op)) + " " + std::to_string(asked) + " B",
             "holds less than one " + std::string(Name(p.dtype)) + " element per rank for group size " +
                 std::to_string(p.group_size));
        continue;
      }
      Status why = ChoosePlacement(*backend, spec.in_place, &p);
      if (!why.ok()) {
        skip(backend_name + " " + std::string(Name(p.op)) + " " + std::string(Name(p.dtype)), why.message());
        continue;
      }
      if (p.ranks_per_process > 1 && backend->OneRankPerProcess()) {
        skip(backend_name + " --ranks-per-process " + std::to_string(p.ranks_per_process),
             "each " + backend_name + " rank is a process of its own");
        continue;
      }
      Launch& launch = launches[std::make_tuple(p.world(), p.ranks_per_process, p.pin, p.cpus)];
      launch.world = p.world();
      launch.ranks_per_process = p.ranks_per_process;
      launch.pin = p.pin;
      launch.cpus = p.cpus;
      launch.points.push_back(p);
    }
  }
  for (auto& entry : launches) plan.launches.push_back(std::move(entry.second));
  if (plan.point_count() == 0) {
    std::string why = plan.skipped.empty() ? "" : " (" + plan.skipped.front().what + ": " + plan.skipped.front().reason + ")";
    return InvalidArgument("the sweep has no point that any backend can run" + why);
  }
  return plan;
}

}  // namespace commbench
