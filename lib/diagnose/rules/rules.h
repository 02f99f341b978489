// Factories of the rules; the registry (registry.cc) lists them in order.
#pragma once

#include <memory>

#include "lib/diagnose/rule.h"

namespace commbench {
namespace diagnose {

std::unique_ptr<Rule> MakeCpuOversubscriptionRule();
std::unique_ptr<Rule> MakeWorldBarrierRule();
std::unique_ptr<Rule> MakeSharedBandwidthRule();
std::unique_ptr<Rule> MakeWakeupLatencyRule();
std::unique_ptr<Rule> MakeStragglerRule();
std::unique_ptr<Rule> MakeLateArrivalRule();  // issue 52
std::unique_ptr<Rule> MakeSetupGrowthRule();
std::unique_ptr<Rule> MakeLegacyDefaultStreamRule();
std::unique_ptr<Rule> MakePageableH2dRule();
std::unique_ptr<Rule> MakeHostSyncRule();
std::unique_ptr<Rule> MakeOutsideLoadRule();

}  // namespace diagnose
}  // namespace commbench
