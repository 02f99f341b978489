// Pre-flight (judge/preflight.cc): the host count and each host's ranks, interface and GPUs.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "lib/accept/judge/testing.h"

namespace commbench::accept {
namespace {

using namespace judge_testing;  // NOLINT: the synthetic cluster and report lookups

TEST(PreflightJudgeTest, PreflightNamesWhatIsMissingPerHost) {
  Cluster c;
  AcceptanceInput in = c.Input();
  in.found[4].ranks = {8};
  in.found[6].interfaces = {"lo"};
  in.found.pop_back();  // host 7 never joined
  AcceptanceReport r = Judge(in);
  EXPECT_TRUE(r.PreflightFailed());
  EXPECT_EQ(r.ExitCode(), 3);
  EXPECT_EQ(Find(r, "preflight ranks", Address(4))->reason, "10.77.0.5: 1 rank(s) joined, the profile expects 2");
  EXPECT_EQ(Find(r, "preflight interface", Address(6))->reason, "10.77.0.7: interface eth0 missing (present: lo)");
  EXPECT_EQ(Find(r, "preflight ranks", Address(7))->reason,
            "10.77.0.8: 0 rank(s) joined, the profile expects 2 (missing at rendezvous)");
  EXPECT_TRUE(Find(r, "preflight ranks", Address(0))->passed);
  std::vector<Check> alone = PreflightChecks(in.profile, in.expected_hosts, in.found);
  EXPECT_EQ(std::count_if(alone.begin(), alone.end(), [](const Check& k) { return !k.passed; }), 4);
}

TEST(PreflightJudgeTest, EverythingPresentPasses) {
  Cluster c;
  AcceptanceInput in = c.Input();
  std::vector<Check> checks = PreflightChecks(in.profile, in.expected_hosts, in.found);
  ASSERT_EQ(checks.size(), 1u + 2u * 8u);  // the host count, then ranks and interface per host
  for (const Check& k : checks) {
    EXPECT_TRUE(k.passed) << k.name << ": " << k.reason;
    EXPECT_TRUE(k.preflight);
  }
  EXPECT_EQ(checks[0].reason, "8 host(s), the profile expects 8");
}

TEST(PreflightJudgeTest, GpusAndHostCount) {
  Cluster c;
  AcceptanceInput in = c.Input();
  in.profile.preflight.gpus_per_host = 2;
  in.profile.preflight.hosts = 9;
  in.found[1].gpus = 4;
  std::vector<Check> checks = PreflightChecks(in.profile, in.expected_hosts, in.found);
  auto find = [&checks](const std::string& name, const std::string& host) -> const Check* {
    for (const Check& k : checks) {
      if (k.name == name && k.host == host) return &k;
    }
    return nullptr;
  };
  EXPECT_FALSE(find("preflight hosts", "")->passed);
  EXPECT_EQ(find("preflight hosts", "")->reason, "8 host(s), the profile expects 9");
  EXPECT_TRUE(find("preflight gpus", Address(1))->passed);
  EXPECT_EQ(find("preflight gpus", Address(0))->reason, "10.77.0.1: GPUs not probed, the profile expects 2");
  EXPECT_FALSE(find("preflight gpus", Address(0))->passed);
}

}  // namespace
}  // namespace commbench::accept
