// Acceptance at scale, by simulation: the real planning and stopping (lib/app AcceptPhases: the phases, pairs rounds
// and bisection levels a profile asks for, stopped once the verdict so far is a clean answer) and the real
// judgement (lib/accept Judge) over modelled measurements (lib/accept/judge/testing.h's Cluster: per host and link
// bandwidth, 30 us latency, lognormal noise on every time). Per case, over RUNS seeds: the share of runs whose first
// suspect is the planted fault (for healthy: that none is named and the verdict passes) and the launches used, for
// the bisection plan (cluster, host, bisection, pairs) and the pairs-only plan (cluster, host, pairs), with the
// suspects' re-tests (Profile::confirm) the plan adds. Several faults at once (a slow host and a host slow at latency;
// and a straggler rank besides): right when every one is named among the suspects. An intermittent host (its network
// at a fifth in spells of three rounds): right when it or a link it ends is named. Launches per fault found: the
// launches over the planted faults named, against 2 log2(hosts) + 8. Usage: accept_sim [RUNS] [HOSTS...]    (default 10
// runs; 8 64 256 1024); ACCEPT_SIM_SHOW_WRONG=1 prints each wrong run's suspects and notes.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lib/accept/judge/testing.h"
#include "lib/app/accept_plan.h"
#include "lib/backend/backend.h"
#include "lib/result/result_file.h"

namespace commbench {
namespace {

using accept::judge_testing::Address;
using accept::judge_testing::Cluster;
using accept::judge_testing::kLarge;
using accept::judge_testing::kSmall;

enum class Case { kHealthy, kSlowHost, kSlowLink, kStraggler, kTwoFaults, kThreeFaults, kIntermittent };
const char* Name(Case c) {
  switch (c) {
    case Case::kHealthy:
      return "healthy";
    case Case::kSlowHost:
      return "slow host";
    case Case::kSlowLink:
      return "slow link";
    case Case::kStraggler:
      return "straggler";
    case Case::kTwoFaults:
      return "slow host + latency host";
    case Case::kThreeFaults:
      return "+ straggler";
    case Case::kIntermittent:
      return "intermittent host";
  }
  return "?";
}

std::string ProfileText(int hosts, bool bisection) {
  return "backend: gloo\nops: allreduce\nsizes: [4K, 4M]\n"
         "floors:\n  - {phase: pairs, size: 4M, fraction: 0.5, fraction_of: best_pair}\n"
         "  - {phase: cluster, size: 4M, busbw_gbps: 0.5, source: \"the modelled 1 GB/s network\"}\n"
         "repeats: 1\ntime_budget_s: 100000\n"
         "phases: [cluster, host, " +
         std::string(bisection ? "bisection, pairs" : "pairs") + "]\n" +
         "pairs: {rounds: 7, pair_fraction: 0.5}\nbisection: {block_fraction: 0.5}\n" +
         "preflight: {hosts: " + std::to_string(hosts) + ", ranks_per_host: 2}\n";
}

// The hosts of each group of a planned phase (ranks r of host r / 2, as placed below).
std::vector<std::vector<int>> GroupsOf(const accept::Layout& l) {
  std::vector<std::vector<int>> out(static_cast<size_t>(l.groups));
  for (size_t i = 0; i < l.order.size(); ++i) {
    std::vector<int>& g = out[i / static_cast<size_t>(l.group_size)];
    const int host = l.order[i] / 2;
    if (g.empty() || g.back() != host) g.push_back(host);
  }
  return out;
}

struct Outcome {
  bool right = false;
  int launches = 0;
  int found = 0;  // planted faults named among the suspects
};

bool Named(const std::vector<accept::AcceptanceSuspect>& s, int host) {
  return std::any_of(s.begin(), s.end(), [host](const accept::AcceptanceSuspect& x) {
    return x.what != accept::SuspectWhat::kLink && x.host == Address(host);
  });
}

// A wrong run's report (ACCEPT_SIM_SHOW_WRONG=1): its suspects with their evidence, and its notes.
void Show(Case what, int hosts, bool bisection, uint64_t seed, const accept::AcceptanceReport& r) {
  std::fprintf(stderr, "--- %s, %d hosts, %s, seed %llu: %s\n", Name(what), hosts,
               bisection ? "bisection+pairs" : "pairs only", static_cast<unsigned long long>(seed),
               r.passed ? "passed" : "failed");
  for (const accept::AcceptanceSuspect& s : r.suspects) {
    std::fprintf(stderr, "  suspect %s%s%s\n", s.host.c_str(), s.peer.empty() ? "" : "-", s.peer.c_str());
    for (const std::string& e : s.evidence) std::fprintf(stderr, "    %s\n", e.c_str());
  }
  for (const std::string& n : r.notes) std::fprintf(stderr, "  note: %s\n", n.c_str());
}

Outcome RunOnce(Case what, int hosts, bool bisection, uint64_t seed, const std::vector<BackendDescription>& gloo) {
  Cluster c;
  c.hosts = hosts;
  c.noise = 0.05;
  c.rng.seed(seed);
  std::mt19937_64 pick(seed * 7919);
  const int victim = static_cast<int>(pick() % static_cast<uint64_t>(hosts));
  accept::Pair link{0, 0};
  // The other faults' hosts: the next ones round the list.
  const int second = (victim + 1 + static_cast<int>(pick() % static_cast<uint64_t>(hosts - 1))) % hosts;
  int third = (second + 1) % hosts;
  if (third == victim) third = (third + 1) % hosts;
  const bool several = what == Case::kTwoFaults || what == Case::kThreeFaults;
  if (what == Case::kSlowHost || several) c.host_net[victim] = 0.25;
  if (several) c.host_latency_us[second] = 400;
  if (what == Case::kIntermittent) c.host_net_flapping[victim] = 0.2;
  if (what == Case::kStraggler || what == Case::kThreeFaults) {
    const int host = what == Case::kStraggler ? victim : third;
    c.straggler = host * 2 + 1;
    c.straggler_us = 3000;
  }
  auto profile = accept::ParseProfile(ProfileText(hosts, bisection), "sim.yaml", {"gloo"});
  if (!profile.ok()) {
    std::fprintf(stderr, "accept_sim: %d hosts: %s\n", hosts, profile.status().message().c_str());
    std::exit(1);
  }
  std::vector<std::string> at;
  for (int h = 0; h < hosts; ++h) at.insert(at.end(), 2, Address(h));
  app::AcceptPhases phases = app::AcceptPhases::OverRanks(*profile, at, std::vector<std::string>(at.size()));
  if (what == Case::kSlowLink) {  // a pair the first pairs round meets, so that the plan can see it
    for (const app::PlannedPhase& p : app::PlanPhases(*profile, phases.hosts())) {
      if (p.phase != accept::Phase::kPairs) continue;
      const auto groups = GroupsOf(p.layout);
      const auto& g = groups[pick() % groups.size()];
      link = {std::min(g[0], g[1]), std::max(g[0], g[1])};
      c.link[link] = 0.25;
      break;
    }
  }
  const Status planned = phases.PlanAll(app::AcceptBaseSpec(*profile, {}, hosts), gloo);
  if (!planned.ok()) {
    std::fprintf(stderr, "accept_sim: %d hosts: %s\n", hosts, planned.message().c_str());
    std::exit(1);
  }
  result::ResultFile file;
  Outcome out;
  for (std::optional<size_t> next = phases.Start(); next; next = phases.Next(file, 0)) {
    const app::PlannedPhase& p = phases.phases()[*next];
    ++out.launches;
    for (uint64_t bytes : {kSmall, kLarge}) {
      file.points.push_back(c.Point(bytes, GroupsOf(p.layout)));
      file.points.back().point.phase = p.layout.phase;
    }
  }
  const accept::AcceptanceReport r = phases.Finish(&file);
  const auto& s = r.suspects;
  switch (what) {
    case Case::kHealthy:
      out.right = r.passed && s.empty();
      break;
    case Case::kTwoFaults:
    case Case::kThreeFaults:
      out.found = Named(s, victim) + Named(s, second) + (what == Case::kThreeFaults ? Named(s, third) : 0);
      out.right = out.found == (what == Case::kThreeFaults ? 3 : 2);
      break;
    case Case::kIntermittent:  // its host, or a link it ends: a host slow with some partners only
      out.right = std::any_of(s.begin(), s.end(), [victim](const accept::AcceptanceSuspect& x) {
        return x.host == Address(victim) || x.peer == Address(victim);
      });
      break;
    case Case::kSlowHost:
      out.right = !s.empty() && s[0].host == Address(victim) && s[0].what != accept::SuspectWhat::kLink;
      break;
    case Case::kSlowLink:
      out.right = !s.empty() && s[0].what == accept::SuspectWhat::kLink &&
                  ((s[0].host == Address(link.first) && s[0].peer == Address(link.second)) ||
                   (s[0].host == Address(link.second) && s[0].peer == Address(link.first)));
      break;
    case Case::kStraggler:
      out.right = !s.empty() && s[0].what == accept::SuspectWhat::kRank && s[0].rank == victim * 2 + 1;
      break;
  }
  if (!several) out.found = what != Case::kHealthy && out.right;
  if (!out.right && std::getenv("ACCEPT_SIM_SHOW_WRONG")) Show(what, hosts, bisection, seed, r);
  return out;
}

}  // namespace
}  // namespace commbench

int main(int argc, char** argv) {
  using namespace commbench;
  const int runs = argc > 1 ? std::atoi(argv[1]) : 10;
  std::vector<int> sizes;
  for (int i = 2; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {8, 64, 256, 1024};
  auto gloo = DescribeRegisteredBackends({"gloo"});
  if (!gloo.ok()) return 1;
  std::printf(
      "| hosts | case | plan | right | launches (median, max) | launches per fault found | 2*log2(hosts)+8 |\n"
      "|---|---|---|---|---|---|---|\n");
  for (int hosts : sizes) {
    for (Case what : {Case::kHealthy, Case::kSlowHost, Case::kSlowLink, Case::kStraggler, Case::kTwoFaults,
                      Case::kThreeFaults, Case::kIntermittent}) {
      for (bool bisection : {true, false}) {
        int right = 0, found = 0, total = 0;
        std::vector<int> launches;
        for (int i = 0; i < runs; ++i) {
          const Outcome o = RunOnce(what, hosts, bisection, static_cast<uint64_t>(i + 1), *gloo);
          right += o.right;
          found += o.found;
          total += o.launches;
          launches.push_back(o.launches);
        }
        std::sort(launches.begin(), launches.end());
        char per_fault[32] = "-";
        if (found > 0) std::snprintf(per_fault, sizeof(per_fault), "%.1f", static_cast<double>(total) / found);
        std::printf("| %d | %s | %s | %d/%d | %d, %d | %s | %.0f |\n", hosts, Name(what),
                    bisection ? "bisection+pairs" : "pairs only", right, runs, launches[launches.size() / 2],
                    launches.back(), per_fault, 2 * std::log2(hosts) + 8);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
