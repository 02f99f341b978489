#include "tools/commbench/traffic_spmd.h"

#include <cstdio>
#include <vector>

namespace commbench::cli {

StatusOr<std::optional<LaunchPlace>> LauncherPlace(SpmdFlags* spmd, int world, PlannedMeasure* planned) {
  if (spmd->rank >= 0) spmd->world = world;  // ranks started by hand: --world says how many
  ASSIGN_OR_RETURN(std::optional<LaunchPlace> place, SpmdPlace(*spmd, planned->spec));
  if (!place) return place;
  if (place->world != world) {
    return InvalidArgument("--world " + std::to_string(world) + ", but " + place->source + " started " +
                           std::to_string(place->world) +
                           " ranks (accepted: --world equal to the launcher's rank count)");
  }
  if (!spmd->rendezvous.empty()) {
    std::vector<std::string> notes;
    Status fits = FitPlanToWorld(place->world, &planned->plan, &notes);
    if (!fits.ok()) return InvalidArgument("--measure: " + fits.message());
  }
  return place;
}

void MeasureAsLauncherRank(const SpmdFlags& spmd, const LaunchPlace& place, const std::string& model,
                           const traffic::StepRequest& request, const traffic::StepTraffic& step,
                           const MeasureRequest& run, const PlannedMeasure& planned) {
  const std::string where = place.source == "flags" ? "SPMD ranks (--rank)" : "SPMD ranks from " + place.source;
  RunAsSpmdRank(planned.spec, spmd, place, false, "", [&](SpmdSession& session, std::string* failure) {
    std::fputs(model.c_str(), stdout);
    std::fflush(stdout);
    SpmdMeasure on{[&session](const Plan& plan, const DriverOptions& driver) { return session.RunPlan(plan, driver); },
                   where, failure};
    return RunMeasure(request, step, run, planned, &on);
  });
}

}  // namespace commbench::cli
