// What each rank tells acceptance about its host (its problem against the profile, its fingerprint for the drift
// check), and the phases over the ranks found: on this host alone (the local launcher) or as a launcher placed them.
#pragma once

#include <string>
#include <vector>

#include "lib/accept/profile.h"
#include "lib/app/accept_plan.h"
#include "lib/launch/spmd.h"

namespace commbench::app {

// What this host shows of what the profile expects: "" or "no interface IFACE".
std::string HostProblem(const accept::Profile& profile);

// This host's fingerprint for the drift check (lib/accept/judge/drift.cc), from lib/measure's environment probe:
// "cpu_model", "cores_online", "cores_available", "cpu_quota", "kernel", "version.<backend>",
// "env.<NCCL_/GLOO_/CUDA_/OMP_ name>", "gpu.<name|driver|cuda_runtime|nccl|device_count>", and "net.<IF>.mtu" /
// "net.<IF>.speed" of `iface` (every interface that is up but loopback when "").
Fingerprint HostFingerprint(const std::string& iface);

// What a rank publishes with its arrival (SpmdOptions::problem): its host's problem and fingerprint as one JSON
// object. ParseHostReport reads it back; a plain string (a rank of an older build) is a problem alone.
std::string HostReportText(const accept::Profile& profile, const std::string& iface);
void ParseHostReport(const std::string& text, std::string* problem, Fingerprint* fingerprint);

// The local launcher's acceptance: every rank on this host (127.0.0.1), as many as the profile expects per host
// (2 if it does not say), each with this host's problem.
AcceptPhases LocalPhases(const accept::Profile& profile);
// Under a launcher: the ranks that arrived, each on its transport address, with the problem its host reported.
AcceptPhases SessionPhases(const accept::Profile& profile, const std::vector<SpmdMember>& members);

}  // namespace commbench::app
