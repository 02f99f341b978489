#include "lib/diagnose/rule.h"
#include "lib/diagnose/rules/rules.h"

namespace commbench {
namespace diagnose {

const std::vector<std::unique_ptr<Rule>>& Rules() {
  static const auto* rules = [] {
    auto* v = new std::vector<std::unique_ptr<Rule>>();
    v->push_back(MakeOutsideLoadRule());  // first: on a tie it ranks above the causes it may stand behind
    v->push_back(MakeCpuOversubscriptionRule());
    v->push_back(MakeWorldBarrierRule());
    v->push_back(MakeSharedBandwidthRule());
    v->push_back(MakeWakeupLatencyRule());
    v->push_back(MakeStragglerRule());
    v->push_back(MakeLateArrivalRule());  // issue 52
    v->push_back(MakeSetupGrowthRule());
    v->push_back(MakeLegacyDefaultStreamRule());
    v->push_back(MakePageableH2dRule());
    v->push_back(MakeHostSyncRule());
    return v;
  }();
  return *rules;
}

const Rule* FindRule(const std::string& name) {
  for (const auto& r : Rules()) {
    if (r->name() == name) return r.get();
  }
  return nullptr;
}

}  // namespace diagnose
}  // namespace commbench
