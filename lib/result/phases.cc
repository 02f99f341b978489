#include "lib/result/phases.h"

#include <nlohmann/json.hpp>

#include "lib/result/json_reader.h"

namespace commbench::result {

using nlohmann::json;

double PhaseSeconds::Sum() const {
  double sum = 0;
  for (double v : s) sum += v;
  return sum;
}

void PhaseSeconds::Add(const PhaseSeconds& other) {
  for (size_t i = 0; i < kPhaseCount; ++i) s[i] += other.s[i];
}

bool IsPointPhase(Phase p) { return p != Phase::kStart && p != Phase::kLaunchEnd && p != Phase::kFinish; }

namespace {

json PhasesToJson(const PhaseSeconds& p, bool point) {
  json out = json::object();
  for (const auto& [phase, name] : kPhaseNames) {
    if (!point || IsPointPhase(phase)) out[std::string(name)] = p[phase];
  }
  return out;
}

// Every phase is optional on reading (0 when absent), so that a later phase does not break older readers' files.
PhaseSeconds ReadPhases(ObjectReader& in) {
  PhaseSeconds p;
  for (const auto& [phase, name] : kPhaseNames) {
    const std::string key(name);
    if (in.Has(key.c_str())) p[phase] = in.Number(key.c_str(), 0);
  }
  return p;
}

}  // namespace

json PointPhasesToJson(const PhaseSeconds& p) { return PhasesToJson(p, true); }

StatusOr<PhaseSeconds> ReadPointPhases(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  PhaseSeconds p = ReadPhases(in);
  RETURN_IF_ERROR(errors.status());
  return p;
}

json RankPhasesToJson(const RankPhases& r) {
  json out = PhasesToJson(r.seconds, true);
  out["begin_ns"] = r.begin_ns;
  out["end_ns"] = r.end_ns;
  return out;
}

StatusOr<RankPhases> ReadRankPhases(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  RankPhases r;
  r.seconds = ReadPhases(in);
  r.begin_ns = in.Int("begin_ns", 0);
  r.end_ns = in.Int("end_ns", 0);
  RETURN_IF_ERROR(errors.status());
  return r;
}

json WallTimeToJson(const WallTime& w) {
  return {{"wall_s", w.wall_s},
          {"timed_s", w.phases[Phase::kTimed]},
          {"timed_share", w.TimedShare()},
          {"phases", PhasesToJson(w.phases, false)},
          {"driver_aggregation_s", w.driver_aggregation_s},
          {"driver_writing_s", w.driver_writing_s}};
}

StatusOr<WallTime> ReadWallTime(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  WallTime w;
  w.wall_s = in.Number("wall_s", 0);
  ObjectReader phases = in.Object("phases");
  RETURN_IF_ERROR(errors.status());
  w.phases = ReadPhases(phases);
  w.driver_aggregation_s = in.NumberOr("driver_aggregation_s", 0);
  w.driver_writing_s = in.NumberOr("driver_writing_s", 0);
  RETURN_IF_ERROR(errors.status());
  return w;
}

}  // namespace commbench::result
