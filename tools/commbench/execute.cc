#include "tools/commbench/execute.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "lib/backend/backend.h"
#include "lib/core/affinity.h"
#include "lib/core/ranges.h"
#include "lib/launch/driver.h"
#include "lib/launch/interrupt.h"
#include "lib/measure/aggregate.h"
#include "lib/measure/host_peak.h"
#include "lib/report/atomic_file.h"
#include "lib/report/console.h"
#include "lib/report/console_findings.h"
#include "lib/report/fingerprint.h"
#include "lib/report/html.h"
#include "lib/report/result.h"
#include "lib/sweep/explain.h"
#include "lib/sweep/planner.h"

namespace commbench::cli {

namespace {

std::string SelfPath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "commbench";
}

}  // namespace

std::string CommandLine(int argc, char** argv) {
  std::string line = "commbench";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool plain = a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/=+") ==
                 std::string::npos;
    if (!plain) {
      std::string quoted = "'";
      for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      a = quoted + "'";
    }
    line += " " + a;
  }
  return line;
}

namespace {
std::string& InvocationStorage() {
  static auto* line = new std::string("commbench");
  return *line;
}
}  // namespace

void RememberInvocation(int argc, char** argv) { InvocationStorage() = CommandLine(argc, argv); }
const std::string& Invocation() { return InvocationStorage(); }

namespace {

// --explain: the A/B axis values that let the diagnosis confirm or rule out causes within this sweep.
SweepSpec WithExplainAxes(const SweepSpec& spec, const std::vector<BackendDescription>& backends,
                          const std::string& affinity) {
  std::vector<BackendCapabilities> capabilities;
  for (const auto& b : backends) capabilities.push_back(b.capabilities);
  ExplainExpansion expansion = ExpandForExplain(spec, capabilities, affinity);
  for (const auto& reason : expansion.reasons) std::fprintf(stderr, "commbench: --explain: %s\n", reason.c_str());
  return expansion.spec;
}

// The host's memory-copy and loopback-TCP peaks (cached per host), so that bandwidth reads as a fraction of
// what this machine can do.
nlohmann::json PeaksJson() {
  auto peaks = GetHostPeaks();
  if (!peaks.ok()) return nullptr;
  return {{"memcpy_gbps", peaks->memcpy_gbps}, {"tcp_loopback_gbps", peaks->tcp_loopback_gbps}};
}

}  // namespace

int ExecuteSweep(const SweepSpec& requested, const OutputFlags& outputs, const std::string& command) {
  auto backends = DescribeRegisteredBackends(requested.backends);
  if (!backends.ok()) {
    std::fprintf(stderr, "commbench: error: %s\n", backends.status().message().c_str());
    return 2;
  }
  const SweepSpec spec =
      outputs.explain ? WithExplainAxes(requested, *backends, FormatCpuList(AllowedCpus())) : requested;
  auto plan = PlanSweep(spec, *backends);
  if (!plan.ok()) {
    std::fprintf(stderr, "commbench: error: %s\n", plan.status().message().c_str());
    return 2;
  }
  Status writable = CheckOutputs(outputs);
  if (!writable.ok()) {
    std::fprintf(stderr, "commbench: error: %s\n", writable.message().c_str());
    return 2;
  }
  for (const auto& s : plan->skipped) std::fprintf(stderr, "commbench: skipped %s: %s\n", s.what.c_str(), s.reason.c_str());
  if (!outputs.quiet) {
    std::fprintf(stderr, "commbench: %zu points in %zu launches\n", plan->point_count(), plan->launches.size());
  }

  InstallInterruptHandlers();
  const auto t0 = std::chrono::steady_clock::now();
  ResultInputs inputs;
  inputs.spec = spec;
  inputs.command = command;
  inputs.started_at = Iso8601Now();
  // After the input checks: the fingerprint initialises the CUDA driver and the peaks may run a probe.
  inputs.environment = EnvironmentFingerprint();
  inputs.environment["peaks"] = PeaksJson();
  inputs.skipped = plan->skipped;

  DriverOptions options;
  options.binary = SelfPath();
  options.spec = spec;
  if (!outputs.quiet) options.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  DriverOutcome outcome = RunPlan(*plan, options);

  AggregateOptions aggregate;
  aggregate.sample_cap = spec.sample_cap;
  bool all_correct = true;
  for (const auto& fp : outcome.points) {
    aggregate.cores_available = fp.cores_available;
    inputs.points.push_back(AggregatePoint(fp.point, fp.ranks, aggregate));
    all_correct = all_correct && inputs.points.back()["correct"].get<bool>();
  }
  inputs.failure = outcome.failure;
  inputs.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json result = BuildResult(inputs);

  std::fputs(FormatTables(result).c_str(), stdout);
  std::fputs(FormatGrowth(result).c_str(), stdout);
  std::fputs(FormatFindings(result).c_str(), stdout);
  std::fflush(stdout);

  Status written = WriteFileAtomically(outputs.out, result.dump(1) + "\n");
  if (!written.ok()) {
    std::fprintf(stderr, "commbench: error: %s\n", written.message().c_str());
    return 1;
  }
  std::fprintf(stderr, "commbench: wrote %s (%zu points%s)\n", outputs.out.c_str(), inputs.points.size(),
               outcome.failure.empty() ? "" : ", partial");
  if (!outputs.html.empty()) {
    Status html = report::WriteHtmlReport(result, outputs.html);
    if (!html.ok()) {
      std::fprintf(stderr, "commbench: error: %s\n", html.message().c_str());
      return 1;
    }
    std::fprintf(stderr, "commbench: wrote %s\n", outputs.html.c_str());
  }
  if (!outcome.failure.empty()) {
    std::fprintf(stderr, "commbench: error: %s\n", outcome.failure.c_str());
    return 1;
  }
  if (!all_correct) {
    for (const auto& p : result["points"]) {
      for (const auto& e : p["errors"]) {
        std::fprintf(stderr, "commbench: error: wrong result in %s: %s\n", p["id"].get<std::string>().c_str(),
                     e.get<std::string>().c_str());
      }
    }
    return 1;
  }
  return 0;
}

}  // namespace commbench::cli
