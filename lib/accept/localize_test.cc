#include "lib/accept/localize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>

namespace commbench::accept {
namespace {

// Pair bandwidths over `rounds` re-pairing rounds of `hosts` hosts: a pair moves at the pace of the slower host
// and of its link (`host_gbps`, `link_gbps` default to 10), times multiplicative noise.
std::vector<PairResult> Measure(int hosts, int rounds, const std::function<double(int)>& host_gbps,
                                const std::function<double(int, int)>& link_gbps, double noise, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0, noise);
  std::vector<PairResult> out;
  for (const auto& round : RepairingRounds(hosts, rounds, seed)) {
    for (const Pair& p : round) {
      double g = std::min({host_gbps(p.first), host_gbps(p.second), link_gbps(p.first, p.second)});
      out.push_back({p, g * std::exp(n(rng))});
    }
  }
  return out;
}

double Healthy(int) { return 10; }
double AllLinks(int, int) { return 10; }

TEST(RepairingRoundsTest, EveryRoundAMatchingAndManyPartners) {
  for (int hosts : {2, 5, 8, 16}) {
    auto rounds = RepairingRounds(hosts, 15, 42);
    ASSERT_EQ(rounds.size(), 15u);
    std::vector<std::set<int>> partners(static_cast<size_t>(hosts));
    for (const auto& round : rounds) {
      std::set<int> seen;
      for (const Pair& p : round) {
        EXPECT_LT(p.first, p.second);
        EXPECT_TRUE(seen.insert(p.first).second && seen.insert(p.second).second) << "a host twice in a round";
        partners[static_cast<size_t>(p.first)].insert(p.second);
        partners[static_cast<size_t>(p.second)].insert(p.first);
      }
      EXPECT_EQ(static_cast<int>(seen.size()), hosts - hosts % 2);
    }
    for (int h = 0; h < hosts; ++h) {
      EXPECT_GE(static_cast<int>(partners[static_cast<size_t>(h)].size()), std::min(hosts - 1, 7)) << hosts;
    }
  }
}

TEST(LocalizeTest, NoiseOnlyHasNoSuspect) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Localization l = Localize(8, Measure(8, 15, Healthy, AllLinks, 0.08, seed));
    EXPECT_TRUE(l.suspects.empty()) << "seed " << seed << ": " << l.suspects.front().evidence;
    EXPECT_NEAR(l.typical_gbps, 10, 1);
  }
}

TEST(LocalizeTest, OneSlowHostFirst) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Localization l = Localize(8, Measure(
                                     8, 15, [](int h) { return h == 3 ? 2.5 : 10; }, AllLinks, 0.08, seed));
    ASSERT_EQ(l.suspects.size(), 1u) << "seed " << seed;
    EXPECT_EQ(l.suspects[0].kind, SuspectKind::kHost);
    EXPECT_EQ(l.suspects[0].host, 3);
    EXPECT_NEAR(l.suspects[0].severity, 0.75, 0.1);
    EXPECT_EQ(l.hosts[3].passed, 0);
  }
  Localization l = Localize(8, Measure(
                                   8, 15, [](int h) { return h == 3 ? 2.5 : 10; }, AllLinks, 0.08, 1));
  EXPECT_NE(l.suspects[0].evidence.find("host 3 failed with 7 of its 7 partners"), std::string::npos)
      << l.suspects[0].evidence;
}

TEST(LocalizeTest, OneSlowLinkNamesTheLinkNotItsHosts) {
  auto link = [](int a, int b) { return (a == 2 && b == 5) || (a == 5 && b == 2) ? 2.5 : 10; };
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Localization l = Localize(8, Measure(8, 15, Healthy, link, 0.08, seed));
    ASSERT_EQ(l.suspects.size(), 1u) << "seed " << seed;
    EXPECT_EQ(l.suspects[0].kind, SuspectKind::kLink);
    EXPECT_EQ(l.suspects[0].link, Pair(2, 5));
  }
}

TEST(LocalizeTest, TwoSlowHostsBothNamedWorstFirst) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto host = [](int h) { return h == 1 ? 2.0 : h == 6 ? 4.0 : 10.0; };
    Localization l = Localize(8, Measure(8, 15, host, AllLinks, 0.08, seed));
    ASSERT_EQ(l.suspects.size(), 2u) << "seed " << seed;
    EXPECT_EQ(l.suspects[0].host, 1);
    EXPECT_EQ(l.suspects[1].host, 6);
  }
}

TEST(LocalizeTest, DeclaredFloorFailsAUniformlySlowCluster) {
  // Every pair at 3 GB/s is "typical", but the profile says 8: every host fails with every partner.
  Localization l = Localize(4,
                            Measure(
                                4, 6, [](int) { return 3.0; }, AllLinks, 0.02, 1),
                            {8.0});
  EXPECT_EQ(l.threshold_gbps, 8.0);
  EXPECT_EQ(l.suspects.size(), 4u);
}

}  // namespace
}  // namespace commbench::accept
