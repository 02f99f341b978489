// Helpers every rule shares: choosing the series that grow, formatting numbers, and turning an A/B comparison
// into the finding's status.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lib/diagnose/ab.h"
#include "lib/diagnose/analysis_input.h"
#include "lib/diagnose/rule.h"
#include "lib/result/finding.h"

namespace commbench {
namespace diagnose {

// Growing series accepted by `pred`, largest relative growth first.
std::vector<int> GrowingSeries(const AnalysisInput& in, const std::function<bool(const SeriesData&)>& pred);

// "12.3" style: `digits` significant decimals, no trailing noise.
std::string Fmt(double v, int decimals = 1);

// A short name for a series for sentences: "gloo allreduce 400 B sync=none".
std::string Describe(const SeriesData& s);

// Cores the series' ranks may use: its --cpus list when that restricts them, else the cores the sweep saw; at
// most their cgroup's CPU quota (cpu.cpu_quota), which binds whatever CPUs the ranks may run on.
double CoresForRanks(const AnalysisInput& in, const SeriesData& s);

// The ranks' cgroup CPU quota when it, not the cores they may run on, limits them (in CPUs); 0 otherwise.
double BindingCpuQuota(const AnalysisInput& in, const SeriesData& s);

// At or above this share of its enforcement periods throttled (cpu.throttled_share), a point's cgroup ran out of
// quota in most of them.
inline constexpr double kMostPeriodsThrottled = 0.5;

// Ranks per core at point `p` of series `s` (at least the point's measured threads per core).
double RanksPerCore(const AnalysisInput& in, const SeriesData& s, const PointData& p);

// Adds the series' point ids to finding->points (or ab_points).
void AddPointIds(const AnalysisInput& in, const SeriesData& s, std::vector<std::string>* ids);

// Every A/B of series `a` along `factor` (ab.h: EvaluateAbs), recorded in f->ab, and the status all of them
// give (JudgeAbs); the decisive one sets cut, cut_ci95, ab_points and the summary's A/B sentences. Suspected
// findings carry `confirm_command`.
void ApplyAbs(const AnalysisInput& in, int a, const AbFactor& factor, const std::string& confirm_command, Finding* f);
// The same for A/Bs the rule has already evaluated (EvaluateAbs).
void ApplyAbs(std::vector<result::AbRecord> abs, const std::string& confirm_command, Finding* f);

// One A/B pair judged as ApplyAbs judges each (kept for rules that compare a single partner; nullopt: none).
void ApplyAb(const AnalysisInput& in, const std::optional<AbComparison>& ab, const std::string& b_label,
             const std::string& confirm_command, Finding* f);

}  // namespace diagnose
}  // namespace commbench

namespace commbench {
namespace diagnose {

// Whether the finding is about a series the user asked for (not one --explain added as an A/B side).
bool OnRequestedSeries(const AnalysisInput& in, const Finding& f);

// The most telling of several candidate findings: confirmed, then suspected, then ruled out; then one about a
// series the user asked for before one --explain added; then one with a measured A/B before one without; then
// strength. Candidates that their A/Bs ruled out go with a best that is not in its ruled_out_elsewhere.
std::optional<Finding> PickBest(const AnalysisInput& in, std::vector<Finding> candidates);

// PickBest over what `build` finds in each growing series that `pred` accepts (build may find nothing).
using BuildFinding = std::function<std::optional<Finding>(const AnalysisInput&, int series)>;
std::optional<Finding> BestOverGrowingSeries(const AnalysisInput& in,
                                             const std::function<bool(const SeriesData&)>& pred,
                                             const BuildFinding& build);

// The host peak that bounds a series' aggregate bandwidth: loopback TCP for Gloo and TCP transports, memory
// copy otherwise; 0 when not measured, and for a GPU backend's series (no host peak bounds device memory).
double PeakFor(const AnalysisInput& in, const SeriesData& s, std::string* which);

// "from X us at G=a to Y us at G=b (model, +Z us per group)".
std::string GrowthSentence(const AnalysisInput& in, const SeriesData& s);

// Evidence every growth finding carries: the slope, the end points and the model.
void AddGrowthEvidence(const AnalysisInput& in, const SeriesData& s, Finding* f);

}  // namespace diagnose
}  // namespace commbench
