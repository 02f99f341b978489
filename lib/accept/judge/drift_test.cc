// Configuration drift (judge/drift.cc): each host whose fingerprint differs from the majority's is named with the
// differing keys; hosts that agree pass; a profile's may_differ leaves keys out; under 3 hosts nothing is judged.
#include <gtest/gtest.h>

#include "lib/accept/judge/testing.h"

namespace commbench::accept {
namespace {

using namespace judge_testing;  // NOLINT: the synthetic cluster and report lookups

std::map<std::string, std::string> Fingerprint() {
  return {{"kernel", "6.1.0"},
          {"cpu_model", "AMD EPYC"},
          {"cores_online", "2"},
          {"net.eth0.mtu", "1500"},
          {"version.gloo", "gloo 0.5.0"}};
}

AcceptanceInput WithFingerprints(Cluster& c) {
  AcceptanceInput in = c.Input();
  for (HostFound& f : in.found) f.fingerprint = Fingerprint();
  in.found[3].fingerprint["net.eth0.mtu"] = "1400";
  in.found[5].fingerprint["env.NCCL_ALGO"] = "Ring";
  return in;
}

TEST(DriftJudgeTest, EachHostUnlikeTheMajorityIsNamedWithItsKeys) {
  Cluster c;
  AcceptanceReport r = Judge(WithFingerprints(c));
  EXPECT_EQ(r.ExitCode(), 1) << "drift fails the run, it does not stop it: " << Failed(r);
  const Check* mtu = Find(r, "preflight drift", Address(3));
  ASSERT_NE(mtu, nullptr);
  EXPECT_FALSE(mtu->passed);
  EXPECT_EQ(mtu->kind, ReasonKind::kDrift);
  EXPECT_NE(mtu->reason.find("net.eth0.mtu 1400 (the majority: 1500)"), std::string::npos) << mtu->reason;
  const Check* nccl = Find(r, "preflight drift", Address(5));
  ASSERT_NE(nccl, nullptr);
  EXPECT_NE(nccl->reason.find("env.NCCL_ALGO Ring (the majority: (absent))"), std::string::npos) << nccl->reason;
  for (const HostVerdict& h : r.hosts) {
    const bool drifted = h.host == Address(3) || h.host == Address(5);
    EXPECT_EQ(h.passed, !drifted) << h.host << "\n" << Failed(r);
    if (drifted) {
      EXPECT_EQ(h.reason_kinds, std::vector<ReasonKind>{ReasonKind::kDrift});
    }
  }
}

TEST(DriftJudgeTest, ProfileMayLetKeysDiffer) {
  Cluster c;
  AcceptanceInput in = WithFingerprints(c);
  in.profile.drift.may_differ = {"net.*", "env.NCCL_*"};
  AcceptanceReport r = Judge(in);
  EXPECT_EQ(r.ExitCode(), 0) << Failed(r);
  in.profile.drift.may_differ.clear();
  in.profile.drift.must_match = {"kernel"};
  EXPECT_EQ(Judge(in).ExitCode(), 0) << "only the kernel compared";
}

TEST(DriftJudgeTest, NoMajorityUnderThreeHostsOrWithoutFingerprints) {
  Cluster c;
  AcceptanceInput in = WithFingerprints(c);
  EXPECT_TRUE(DriftChecks(in.profile, {Address(3), Address(4)}, in.found).empty());
  for (HostFound& f : in.found) f.fingerprint.clear();
  EXPECT_TRUE(DriftChecks(in.profile, in.expected_hosts, in.found).empty());
}

}  // namespace
}  // namespace commbench::accept
