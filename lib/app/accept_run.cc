#include "lib/app/accept_run.h"

#include <chrono>

#include "lib/launch/own_address.h"

namespace commbench::app {

StatusOr<AcceptOutcome> RunAcceptance(AcceptPhases* phases, const SweepSpec& base, const AcceptRequest& request) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::optional<size_t> first = phases->Start();
  if (!first) return InvalidArgument("no phase of " + phases->profile().path + " can run here");
  PipelineRequest pipeline;
  pipeline.tool = request.tool;
  pipeline.plan = &phases->plan(*first);
  pipeline.spec = base;
  pipeline.command = request.command;
  pipeline.out = request.out;
  pipeline.quiet = request.quiet;
  pipeline.run_plan = request.run_plan;
  pipeline.follow_up = [phases, &request, t0](const result::ResultFile& so_far) {
    FollowUp f;
    f.explain = false;
    f.again = true;
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::optional<size_t> next = phases->Next(so_far, spent);
    if (!next) return f;
    if (!request.quiet && request.on_phase) request.on_phase(phases->phases()[*next]);
    f.plan = phases->plan(*next);
    return f;
  };
  AcceptOutcome outcome;
  pipeline.before_finish = [phases, &outcome](result::ResultFile* file) { outcome.report = phases->Finish(file); };
  outcome.pipeline = RunPipeline(pipeline);
  return outcome;
}

std::string HostProblem(const accept::Profile& profile) {
  if (profile.preflight.interface.empty()) return "";
  auto address = InterfaceAddress(profile.preflight.interface);
  return address.ok() ? "" : "no interface " + profile.preflight.interface;
}

AcceptPhases LocalPhases(const accept::Profile& profile) {
  const int per_host = profile.preflight.ranks_per_host > 0 ? profile.preflight.ranks_per_host : 2;
  const auto ranks = static_cast<size_t>(per_host);
  return AcceptPhases::OverRanks(profile, std::vector<std::string>(ranks, "127.0.0.1"),
                                 std::vector<std::string>(ranks, HostProblem(profile)));
}

AcceptPhases SessionPhases(const accept::Profile& profile, const std::vector<SpmdMember>& members) {
  std::vector<std::string> addresses, problems;
  for (const SpmdMember& m : members) {
    addresses.push_back(m.address);
    problems.push_back(m.problem);
  }
  return AcceptPhases::OverRanks(profile, addresses, problems);
}

}  // namespace commbench::app
