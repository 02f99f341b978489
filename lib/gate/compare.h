// `commbench compare`: a new result against a baseline, point by point (matched by the planner's stable point id,
// which names every axis), each point's repeats (fresh launches) judged by the decision in decision.h. It fails
// closed: a point on one side only, a side with too few repeats, a file that ended early, or an environment that
// differs in something that changes timings makes the comparison inconclusive or incomparable, never a pass.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "lib/core/name_table.h"
#include "lib/gate/decision.h"
#include "lib/result/result_file.h"

namespace commbench::gate {

struct CompareOptions {
  DecisionOptions decision;
  bool allow_env_drift = false;  // compare even when the environments differ (the differences are still listed)
  // Variables the two sides set differently on purpose (gate --ab's variants): listed, never drift.
  std::set<std::string> varied_variables;
};

struct EnvDifference {
  std::string key;        // "cpu_model", "variables.NCCL_ALGO", "backends.gloo.version", ...
  std::string base, now;  // "" when absent on that side
};

struct PointComparison {
  std::string id;
  Point point;
  std::vector<double> base_us, now_us;  // the p50 of each repeat (result::RepeatMedians)
  Decision decision;
  std::string problem;        // fail-closed reason for this point ("only in the baseline", a wrong result, ...)
  bool wrong_result = false;  // the new side computed a wrong result: a failure whatever its time
};

enum class Outcome { kPass, kRegression, kInconclusive, kIncomparable };
inline constexpr NameTable<Outcome, 4> kOutcomeNames = {{
    {Outcome::kPass, "pass"},
    {Outcome::kRegression, "regression"},
    {Outcome::kInconclusive, "inconclusive"},
    {Outcome::kIncomparable, "incomparable"},
}};

inline std::string Name(Outcome o) { return std::string(NameOf(kOutcomeNames, o)); }

struct Comparison {
  std::vector<PointComparison> points;
  std::vector<std::string> problems;  // file-level: a partial file, missing points, ...
  std::vector<EnvDifference> environment;
  Outcome outcome = Outcome::kInconclusive;
  CompareOptions options;  // what it was decided with: the outputs show the minimum effect and alpha
  // 0 no regression, 1 a regression or a wrong result, 3 inconclusive or incomparable (2 is bad input, earlier).
  int ExitCode() const;
};

// A difference in a variable the two sides set differently on purpose (CompareOptions::varied_variables).
bool IsVaried(const EnvDifference& d, const CompareOptions& options);

// The environment differences that can change timings (CPU, cores and affinity, OS, backend and GPU software
// versions, NCCL_/GLOO_/CUDA_/OMP_ variables); the host name is not one: CI runners differ by name.
std::vector<EnvDifference> TimingRelevantDifferences(const nlohmann::json& base, const nlohmann::json& now);

Comparison Compare(const result::ResultFile& base, const result::ResultFile& now, const CompareOptions& options = {});

}  // namespace commbench::gate
