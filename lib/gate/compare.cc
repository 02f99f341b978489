#include "lib/gate/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "lib/core/printable.h"
#include "lib/core/ranges.h"
#include "lib/gate/one_more_run.h"
#include "lib/stats/summary.h"

namespace commbench::gate {
namespace {

using nlohmann::json;

std::string Text(const json* v) {
  if (v == nullptr || v->is_null()) return "";
  return v->is_string() ? v->get<std::string>() : v->dump();
}

const json* Find(const json& j, const std::string& key) {
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

void Differ(const std::string& key, const json* a, const json* b, std::vector<EnvDifference>* out) {
  const std::string ta = Text(a), tb = Text(b);
  if (ta != tb) out->push_back({key, ta, tb});
}

// Every key of object `field` on either side, compared one level down (optionally at `leaf` inside each).
void DifferByKey(const json& base, const json& now, const std::string& field, const std::string& leaf,
                 std::vector<EnvDifference>* out) {
  const json empty = json::object();
  const json* a = Find(base, field);
  const json* b = Find(now, field);
  const json& ja = a && a->is_object() ? *a : empty;
  const json& jb = b && b->is_object() ? *b : empty;
  std::set<std::string> keys;
  for (const auto& [k, v] : ja.items()) keys.insert(k);
  for (const auto& [k, v] : jb.items()) keys.insert(k);
  for (const std::string& k : keys) {
    const json* va = Find(ja, k);
    const json* vb = Find(jb, k);
    if (!leaf.empty()) {
      va = va && va->is_object() ? Find(*va, leaf) : nullptr;
      vb = vb && vb->is_object() ? Find(*vb, leaf) : nullptr;
    }
    Differ(field + "." + k + (leaf.empty() ? "" : "." + leaf), va, vb, out);
  }
}

// Points by id, in first-seen order. A point's repeats are in its record (schema_version 3: `repeats`); files
// written before that may hold one entry per repeat, all of which count.
std::map<std::string, std::vector<const result::PointResult*>> ById(const std::vector<result::PointResult>& points,
                                                                    std::vector<std::string>* order) {
  std::map<std::string, std::vector<const result::PointResult*>> by;
  for (const result::PointResult& p : points) {
    if (by[p.id].empty() && order) order->push_back(p.id);
    by[p.id].push_back(&p);
  }
  return by;
}

}  // namespace

int Comparison::ExitCode() const {
  switch (outcome) {
    case Outcome::kPass:
      return 0;
    case Outcome::kRegression:
      return 1;
    default:
      return 3;
  }
}

bool IsVaried(const EnvDifference& d, const CompareOptions& options) {
  return d.key.rfind("variables.", 0) == 0 && options.varied_variables.count(d.key.substr(10));
}

std::vector<EnvDifference> TimingRelevantDifferences(const json& base, const json& now) {
  std::vector<EnvDifference> out;
  for (const char* key : {"cpu_model", "cores_online", "cores_available", "affinity", "os", "gloo_version"}) {
    Differ(key, Find(base, key), Find(now, key), &out);
  }
  // A container's CPU limit, which the affinity mask does not show. Files made before it was recorded lack it.
  if (Find(base, "cpu_quota") && Find(now, "cpu_quota")) {
    Differ("cpu_quota", Find(base, "cpu_quota"), Find(now, "cpu_quota"), &out);
  }
  // How the CPUs idle and clock (a guest's halt polling alone moved 400 B latency 80 -> 44 us here). Files made
  // before it was recorded lack it: no difference then.
  const json* power_base = Find(base, "cpu_power");
  const json* power_now = Find(now, "cpu_power");
  if (power_base && power_now && power_base->is_object() && power_now->is_object()) {
    for (const char* key : {"idle_driver", "guest_halt_poll_ns", "idle_states_disabled", "frequency_governor"}) {
      Differ(std::string("cpu_power.") + key, Find(*power_base, key), Find(*power_now, key), &out);
    }
  }
  DifferByKey(base, now, "backends", "version", &out);
  DifferByKey(base, now, "variables", "", &out);
  for (const char* gpu_key : {"name", "driver", "cuda_runtime", "nccl"}) {
    const json* a = Find(base, "gpu");
    const json* b = Find(now, "gpu");
    Differ(std::string("gpu.") + gpu_key, a && a->is_object() ? Find(*a, gpu_key) : nullptr,
           b && b->is_object() ? Find(*b, gpu_key) : nullptr, &out);
  }
  return out;
}

double MinEffectFor(const CompareOptions& options, uint64_t bytes) {
  auto floor = options.min_effect_below.upper_bound(bytes);
  return floor == options.min_effect_below.end() ? options.decision.min_effect : floor->second;
}

Status SetMinEffects(double min_effect, const std::vector<std::string>& below, CompareOptions* options) {
  auto fraction_ok = [](double f) { return f > 0 && f < 1; };
  if (!fraction_ok(min_effect)) {
    return InvalidArgument("--min-effect " + std::to_string(min_effect) + " (accepted: a fraction in (0, 1))");
  }
  options->decision.min_effect = min_effect;
  options->min_effect_below.clear();
  for (const std::string& item : below) {
    const std::string accepted = " (accepted: SIZE=FRACTION, e.g. 4K=0.1: points under 4 KiB use a 10 % floor)";
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return InvalidArgument("--min-effect-below '" + item + "'" + accepted);
    auto size = ParseByteSize(item.substr(0, eq), "--min-effect-below");
    if (!size.ok()) {
      return InvalidArgument("--min-effect-below '" + item + "': '" + item.substr(0, eq) + "' is not a byte count" +
                             accepted);
    }
    const std::string value = item.substr(eq + 1);
    char* end = nullptr;
    const double f = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !fraction_ok(f)) {
      return InvalidArgument("--min-effect-below '" + item + "': the floor must be a fraction in (0, 1)" + accepted);
    }
    if (!options->min_effect_below.emplace(*size, f).second) {
      return InvalidArgument("--min-effect-below '" + item + "': that size is given twice" + accepted);
    }
  }
  return OkStatus();
}

Comparison Compare(const result::ResultFile& base, const result::ResultFile& now, const CompareOptions& options) {
  Comparison c;
  c.options = options;
  c.environment = TimingRelevantDifferences(base.header.environment.fingerprint, now.header.environment.fingerprint);
  for (const auto* side : {&base, &now}) {
    if (side->trailer.status == result::RunStatus::kPartial) {
      c.problems.push_back(std::string(side == &base ? "the baseline" : "the new result") +
                           " ended early: " + side->trailer.failure);
    }
  }
  std::vector<std::string> order;
  auto base_points = ById(base.points, &order);
  auto now_points = ById(now.points, nullptr);
  for (const auto& [id, points] : now_points) {
    if (!base_points.count(id)) order.push_back(id);
  }
  bool wrong = false, slower = false, undecided = false;
  for (const std::string& id : order) {
    PointComparison pc;
    pc.id = id;
    auto b = base_points.find(id);
    auto n = now_points.find(id);
    pc.point = (b != base_points.end() ? b->second : n->second).front()->point;
    if (b != base_points.end()) {
      for (const auto* p : b->second) {
        const std::vector<double> medians = result::RepeatMedians(*p);
        pc.base_us.insert(pc.base_us.end(), medians.begin(), medians.end());
      }
    }
    if (n != now_points.end()) {
      for (const auto* p : n->second) {
        const std::vector<double> medians = result::RepeatMedians(*p);
        pc.now_us.insert(pc.now_us.end(), medians.begin(), medians.end());
        pc.wrong_result = pc.wrong_result || !p->correct;
      }
    }
    if (b == base_points.end()) pc.problem = "only in the new result";
    if (n == now_points.end()) pc.problem = "only in the baseline";
    DecisionOptions d = options.decision;
    d.min_effect = MinEffectFor(options, pc.point.bytes);
    d.seed = options.decision.seed + std::hash<std::string>()(id);
    if (auto seq = options.sequential.find(id); seq != options.sequential.end()) {
      pc.sequential = seq->second;
      d.boundary_p = seq->second.boundary_p;
      d.final_base = seq->second.final_base;
      d.final_now = seq->second.final_now;
    }
    d.paired = options.paired;
    d.auto_floor = options.auto_floor;
    if (auto cal = options.calibrated_floor.find(id); options.auto_floor && cal != options.calibrated_floor.end()) {
      if (std::isfinite(cal->second)) d.min_effect = std::max(d.min_effect, cal->second);
    }
    if (pc.problem.empty()) {
      const auto jobs = options.base_jobs_us.find(id);
      if (options.base_is_runs) {
        pc.decision = DecideAgainstRuns(pc.base_us, pc.now_us, d);
      } else if (jobs != options.base_jobs_us.end() && jobs->second.size() >= kLeastOtherJobs && !pc.base_us.empty()) {
        std::vector<double> runs = {Median(pc.base_us)};
        runs.insert(runs.end(), jobs->second.begin(), jobs->second.end());
        pc.decision = DecideAgainstRuns(runs, pc.now_us, d, "the jobs of the baseline's build");
      } else {
        pc.decision = Decide(pc.base_us, pc.now_us, d);
      }
    }
    if (pc.decision.floor <= 0) pc.decision.floor = d.min_effect;
    // A verdict on repeats a busy runner disturbed is the runner's as much as the build's, "unchanged" too: a load
    // can shrink a change into the floor (docs/gate.md), unless it could not be that large (busy_runner.h).
    if (pc.sequential) JudgeOnBusyRunner(*pc.sequential, &pc.decision);
    if (options.host && pc.problem.empty()) AllowForHost(*options.host, &pc.decision);
    if (pc.wrong_result) {
      wrong = true;
      pc.problem = "the new side computed a wrong result";
    } else if (!pc.problem.empty() || pc.decision.change == Change::kInconclusive) {
      undecided = true;
    } else if (pc.decision.change == Change::kSlower) {
      slower = true;
    }
    c.points.push_back(std::move(pc));
  }
  if (c.points.empty()) c.problems.push_back("no points to compare");
  bool drift = false;
  for (const EnvDifference& d : c.environment) drift = drift || (!IsVaried(d, options) && !options.allow_env_drift);
  // A wrong result fails whatever else is true; a slowdown counts only between like environments.
  if (wrong) {
    c.outcome = Outcome::kRegression;
  } else if (drift) {
    c.outcome = Outcome::kIncomparable;
  } else if (slower) {
    c.outcome = Outcome::kRegression;
  } else if (undecided || !c.problems.empty()) {
    c.outcome = Outcome::kInconclusive;
  } else {
    c.outcome = Outcome::kPass;
  }
  return c;
}

Status SetMinEffects(const std::string& min_effect, const std::vector<std::string>& below, CompareOptions* options) {
  const std::string accepted = " (accepted: a fraction in (0, 1), auto, or auto:F with F the least floor)";
  std::string number = min_effect;
  const bool automatic = min_effect == "auto" || min_effect.rfind("auto:", 0) == 0;
  if (automatic) number = min_effect == "auto" ? "0.05" : min_effect.substr(5);
  char* end = nullptr;
  const double f = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(f > 0 && f < 1)) {
    return InvalidArgument("--min-effect '" + Printable(min_effect) + "'" + accepted);
  }
  RETURN_IF_ERROR(SetMinEffects(f, below, options));
  options->auto_floor = automatic;
  return OkStatus();
}

namespace {

std::string Shown(double v) {
  std::ostringstream out;
  out << std::setprecision(10) << v;
  return out.str();
}

}  // namespace

Status CheckComparable(const result::ResultFile& file, const std::string& path) {
  std::map<std::string, size_t> first_index;
  for (size_t i = 0; i < file.points.size(); ++i) {
    const result::PointResult& p = file.points[i];
    const auto [seen, fresh] = first_index.emplace(p.id, i);
    if (!fresh && file.header.schema_version >= 3) {
      return InvalidArgument(path + ": point " + Printable(p.id) + ": the id is given twice (points[" +
                             std::to_string(seen->second) + "] and points[" + std::to_string(i) +
                             "]; accepted: each id once, its repeats in its own `repeats`)");
    }
    const std::vector<double> medians = result::RepeatMedians(p);
    for (size_t r = 0; r < medians.size(); ++r) {
      if (std::isfinite(medians[r]) && medians[r] > 0) continue;
      const std::string field = p.repeat_p50_us.empty() ? "time_us.p50" : "repeats.p50_us[" + std::to_string(r) + "]";
      return InvalidArgument(path + ": point " + Printable(p.id) + ": " + field + " is " + Shown(medians[r]) +
                             " (accepted: a finite time > 0 us)");
    }
  }
  return OkStatus();
}

StatusOr<result::ResultFile> LoadComparable(const std::string& path) {
  ASSIGN_OR_RETURN(result::ResultFile file, result::LoadResultFile(path));
  RETURN_IF_ERROR(CheckComparable(file, path));
  return file;
}

}  // namespace commbench::gate
