// A rule recognises one cause of growth. Each rule lives in its own file under rules/ and is listed in the
// registry, so that `--list` style output can print what the diagnosis knows.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/diagnose/ab.h"
#include "lib/diagnose/analysis_input.h"
#include "lib/result/finding.h"

namespace commbench {
namespace diagnose {

// The diagnosis produces the result file's finding records.
using result::Evidence;
using result::Finding;
using result::FindingStatus;

class Rule {
 public:
  virtual ~Rule() = default;
  virtual std::string name() const = 0;         // stable id, e.g. "cpu_oversubscription"
  virtual std::string description() const = 0;  // one line
  // A finding when the rule's signature is present in a growing series, nullopt otherwise. A rule whose A/B is
  // in the result and did not cut the growth returns a kRuledOut finding.
  virtual std::optional<Finding> Evaluate(const AnalysisInput& input) const = 0;
  // The one factor this rule's A/B varies (ab.h); no axes when no A/B can confirm the cause. The diagnosis
  // reads it to give an A/B that several rules claim to the rule whose factor it is.
  virtual AbFactor ab_factor() const { return {}; }
};

// Every rule, in a fixed order.
const std::vector<std::unique_ptr<Rule>>& Rules();
const Rule* FindRule(const std::string& name);

}  // namespace diagnose
}  // namespace commbench
