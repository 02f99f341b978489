#include "lib/app/accept_run.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "lib/accept/outputs.h"
#include "lib/core/atomic_file.h"

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

SweepSpec AcceptLaunchSpec(const AcceptSettings& settings) {
  SweepSpec s;
  s.iface = settings.iface;
  s.timeout_s = settings.timeout_s;
  return s;
}

StatusOr<SweepSpec> PlanAcceptance(AcceptPhases* phases, const AcceptSettings& settings) {
  const int hosts = static_cast<int>(phases->hosts().names.size());
  SweepSpec base = AcceptBaseSpec(phases->profile(), settings, hosts);
  ASSIGN_OR_RETURN(std::vector<BackendDescription> backends, DescribeRegisteredBackends(base.backends));
  RETURN_IF_ERROR(phases->PlanAll(base, backends));
  return base;
}

Status CheckAcceptanceFiles(const std::string& junit, const std::string& hosts_out) {
  if (!junit.empty()) RETURN_IF_ERROR(CheckWritableOutput(junit));
  if (!hosts_out.empty()) RETURN_IF_ERROR(CheckWritableOutput(hosts_out));
  return OkStatus();
}

Status WriteAcceptanceFiles(const accept::AcceptanceReport& report, const std::string& junit,
                            const std::string& hosts_out) {
  if (!junit.empty()) RETURN_IF_ERROR(WriteFileAtomically(junit, accept::AcceptanceToJunit(report)));
  if (!hosts_out.empty()) RETURN_IF_ERROR(WriteFileAtomically(hosts_out, accept::AcceptanceHostLines(report)));
  return OkStatus();
}

std::vector<std::string> RemoveStaleOutputs(const std::vector<std::string>& paths) {
  std::vector<std::string> removed;
  for (const std::string& path : paths) {
    struct stat st;
    if (path.empty() || lstat(path.c_str(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) continue;
    if (unlink(path.c_str()) == 0) removed.push_back(path);
  }
  return removed;
}

}  // namespace commbench::app
