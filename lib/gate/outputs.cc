#include "lib/gate/outputs.h"

#include <cmath>

#include "lib/gate/calibration.h"
#include "lib/model/point_json.h"
#include "lib/stats/summary.h"

namespace commbench::gate {
namespace {

using nlohmann::json;

json Number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// The point's axes as the result file writes them, without the id (the entry has it).
json Axes(const Point& point) {
  json axes = PointToJson(point);
  axes.erase("id");
  return axes;
}

// Every repeat of a sequential gate at a point, disturbed or not (schema_version 3).
json Repeats(const SequentialPoint& s) {
  json out = json::array();
  for (const RepeatRecord& r : s.repeats) {
    json record = {{"side", r.side},
                   {"round", r.round},
                   {"disturbed", r.disturbed},
                   {"replaced", r.replaced},
                   {"outside_share", Number(r.outside_share)},
                   {"runqueue_share", Number(r.runqueue_share)},
                   {"why", r.why}};
    if (r.migrations >= 0) record["migrations"] = r.migrations;  // absent where the repeat's result has none
    out.push_back(std::move(record));
  }
  return out;
}

json Evidence(const RatioEvidence& e) {
  return {{"n", e.n},
          {"ratio", Number(e.ratio)},
          {"ratio_ci95", {Number(e.lo), Number(e.hi)}},
          {"p_value", Number(e.p)},
          {"detectable", Number(e.detectable)}};
}

}  // namespace

std::string VerdictOf(const PointComparison& p) {
  if (p.wrong_result) return "wrong result";
  if (!p.problem.empty()) return "inconclusive";
  return Name(p.decision.change);
}

std::string ReasonOf(const PointComparison& p) { return p.problem.empty() ? p.decision.reason : p.problem; }

json HostShiftToJson(const HostShift& h) {
  json j = {{"judged", h.judged},       {"moved", h.moved},       {"tolerance", kHostTolerance},
            {"base_samples", h.base_n}, {"new_samples", h.now_n}, {"summary", h.Describe()}};
  if (!h.judged) {
    j["not_judged"] = h.not_judged;
    return j;
  }
  j["ratio"] = Number(h.ratio);
  j["ratio_ci95"] = {Number(h.lo), Number(h.hi)};
  j["p_value"] = Number(h.p);
  j["loopback_ratio"] = Number(h.loopback_ratio);
  j["copy_ratio"] = Number(h.copy_ratio);
  if (h.jobs > 0) j["jobs"] = h.jobs;
  return j;
}

json ComparisonToJson(const Comparison& c, const std::string& base_path, const std::string& new_path) {
  json j = {{"kind", "commbench comparison"}, {"schema_version", 3},       {"base", base_path},     {"new", new_path},
            {"outcome", Name(c.outcome)},     {"exit_code", c.ExitCode()}, {"problems", c.problems}};
  j["options"] = {{"min_effect", c.options.decision.min_effect},
                  {"alpha", c.options.decision.alpha},
                  {"allow_env_drift", c.options.allow_env_drift}};
  if (c.options.auto_floor) j["options"]["min_effect_auto"] = true;
  j["options"]["min_effect_below"] = json::array();
  for (const auto& [bytes, floor] : c.options.min_effect_below) {
    j["options"]["min_effect_below"].push_back({{"bytes", bytes}, {"min_effect", floor}});
  }
  if (c.options.sequential_run) {
    const SequentialRun& r = *c.options.sequential_run;
    j["options"]["sequential"] = {{"budget_s", r.budget_s},     {"elapsed_s", r.elapsed_s},
                                  {"rounds", r.rounds},         {"planned_repeats", r.planned_repeats},
                                  {"first_look", r.first_look}, {"look_every", r.look_every},
                                  {"max_reruns", r.max_reruns}, {"stopped_because", r.stopped_because}};
  }
  if (c.options.calibration) j["options"]["calibration"] = CalibrationToJson(*c.options.calibration);
  if (c.options.host) j["options"]["host_shift"] = HostShiftToJson(*c.options.host);
  j["environment_differences"] = json::array();
  for (const EnvDifference& d : c.environment) {
    j["environment_differences"].push_back(
        {{"key", d.key}, {"base", d.base}, {"new", d.now}, {"varied", IsVaried(d, c.options)}});
  }
  j["points"] = json::array();
  for (const PointComparison& p : c.points) {
    j["points"].push_back(
        {{"id", p.id},
         {"verdict", VerdictOf(p)},
         {"axes", Axes(p.point)},
         {"min_effect",
          p.problem.empty() && p.decision.floor > 0 ? p.decision.floor : MinEffectFor(c.options, p.point.bytes)},
         {"base_us", p.base_us},
         {"new_us", p.now_us},
         {"base_median_us", Number(Median(p.base_us))},
         {"new_median_us", Number(Median(p.now_us))},
         {"ratio", Number(p.decision.ratio)},
         {"ratio_ci95", {Number(p.decision.ratio_lo), Number(p.decision.ratio_hi)}},
         {"p_value", p.problem.empty() ? Number(p.decision.test.p) : json(nullptr)},
         // A point judged by its problem (one side only, a wrong result) has no test behind it.
         {"detectable", p.problem.empty() ? Number(p.decision.detectable) : json(nullptr)},
         {"reason", ReasonOf(p)}});
    json& point = j["points"].back();
    if (p.problem.empty() && std::isfinite(p.decision.resolution)) point["resolution"] = p.decision.resolution;
    if (p.problem.empty() && p.decision.paired.n > 0) {
      point["evidence"] = {{"used", p.decision.paired_used ? "paired" : "unpaired"},
                           {"unpaired", Evidence(p.decision.unpaired)},
                           {"paired", Evidence(p.decision.paired)}};
    }
    if (p.sequential) {
      const SequentialPoint& s = *p.sequential;
      j["points"].back()["sequential"] = {{"looks", s.looks},
                                          {"boundary_p", s.boundary_p},
                                          {"spent_alpha", s.spent_alpha},
                                          {"information", s.information},
                                          {"stopped", s.stopped},
                                          {"disturbed", s.disturbed},
                                          {"replaced", s.replaced},
                                          {"disturbances", s.disturbances},
                                          {"repeats", Repeats(s)}};
    }
  }
  return j;
}

}  // namespace commbench::gate
