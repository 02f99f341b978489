#include "lib/accept/profile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace commbench::accept {
namespace {

// The backend names a profile may take here (the CLI passes the backend registry's).
const std::vector<std::string> kBackends = {"gloo", "nccl", "native"};

const char kGood[] =
    "name: two-hosts\n"                                                                         // 1
    "backend: gloo\n"                                                                           // 2
    "ops: [allreduce, allgather]\n"                                                             // 3
    "sizes: [4K, 1M, 16M]\n"                                                                    // 4
    "floors:\n"                                                                                 // 5
    "  - {phase: pairs, op: allreduce, size: 16M, busbw_gbps: 2.5, source: \"placeholder\"}\n"  // 6
    "  - {size: 1M, fraction: 0.6, fraction_of: best_pair}\n"                                   // 7
    "ceilings:\n"                                                                               // 8
    "  - {size: 4K, p50_us: 500}\n"                                                             // 9
    "  - {p99_over_p50: 5}\n"                                                                   // 10
    "repeats: 3\n"                                                                              // 11
    "time_budget_s: 90\n"                                                                       // 12
    "phases: [pairs, cluster, host]\n"                                                          // 13
    "pairs: {rounds: 7, seed: 3}\n"                                                             // 14
    "preflight: {hosts: 4, ranks_per_host: 2, interface: eth0}\n";                              // 15

std::vector<std::string> Lines(const Status& s) {
  std::vector<std::string> out;
  std::stringstream ss(s.message());
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

// The one problem of kGood with `from` replaced by `to`.
std::string OneProblem(const std::string& from, const std::string& to) {
  std::string text = kGood;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  auto p = ParseProfile(text, "p.yaml", kBackends);
  EXPECT_FALSE(p.ok()) << "accepted: " << to;
  if (p.ok()) return "";
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  std::vector<std::string> lines = Lines(p.status());
  EXPECT_EQ(lines.size(), 1u) << p.status().message();
  return lines.empty() ? "" : lines[0];
}

TEST(ProfileTest, ReadsEveryField) {
  auto p = ParseProfile(kGood, "p.yaml", kBackends);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->name, "two-hosts");
  EXPECT_EQ(p->backend, "gloo");
  EXPECT_EQ(p->ops, (std::vector<Collective>{Collective::kAllreduce, Collective::kAllgather}));
  EXPECT_EQ(p->sizes, (std::vector<uint64_t>{4096, 1 << 20, 16 << 20}));
  ASSERT_EQ(p->floors.size(), 2u);
  EXPECT_EQ(p->floors[0].phase, Phase::kPairs);
  EXPECT_EQ(p->floors[0].op, Collective::kAllreduce);
  EXPECT_EQ(p->floors[0].bytes, 16u << 20);
  EXPECT_DOUBLE_EQ(p->floors[0].busbw_gbps, 2.5);
  EXPECT_EQ(p->floors[0].of, PeakOf::kNone);
  EXPECT_EQ(p->floors[0].source, "placeholder");
  EXPECT_EQ(p->floors[0].line, 6);
  EXPECT_FALSE(p->floors[1].phase.has_value());
  EXPECT_FALSE(p->floors[1].op.has_value());
  EXPECT_DOUBLE_EQ(p->floors[1].fraction, 0.6);
  EXPECT_EQ(p->floors[1].of, PeakOf::kBestPair);
  ASSERT_EQ(p->ceilings.size(), 2u);
  EXPECT_EQ(p->ceilings[0].bytes, 4096u);
  EXPECT_DOUBLE_EQ(p->ceilings[0].p50_us, 500);
  EXPECT_FALSE(p->ceilings[1].bytes.has_value());
  EXPECT_DOUBLE_EQ(p->ceilings[1].p99_over_p50, 5);
  EXPECT_EQ(p->repeats, 3);
  EXPECT_DOUBLE_EQ(p->time_budget_s, 90);
  // Run order, whatever order the file lists them in.
  EXPECT_EQ(p->phases, (std::vector<Phase>{Phase::kCluster, Phase::kHost, Phase::kPairs}));
  EXPECT_EQ(p->pairs.rounds, 7);
  EXPECT_EQ(p->pairs.seed, 3u);
  EXPECT_DOUBLE_EQ(p->pairs.pair_fraction, 0.7);  // the default
  EXPECT_EQ(p->preflight.hosts, 4);
  EXPECT_EQ(p->preflight.ranks_per_host, 2);
  EXPECT_EQ(p->preflight.interface, "eth0");
  EXPECT_EQ(p->preflight.gpus_per_host, 0);
}

TEST(ProfileTest, EachBadValueIsOneLineNamingKeyAndValue) {
  EXPECT_EQ(OneProblem("backend: gloo", "backend: glooo"),
            "p.yaml:2: backend: 'glooo' is not a backend (accepted: gloo, nccl, native)");
  EXPECT_EQ(OneProblem("ops: [allreduce, allgather]", "ops: [allreduce, alltoall]"),
            "p.yaml:3: ops: 'alltoall' is not a collective (accepted: allreduce, allgather, reduce_scatter)");
  EXPECT_EQ(OneProblem("sizes: [4K, 1M, 16M]", "sizes: [4K, 1M, 16M, 3Q]"),
            "p.yaml:4: sizes: '3Q' is not a byte count (accepted: sizes like 4K, 1M)");
  EXPECT_EQ(OneProblem("busbw_gbps: 2.5", "busbw_gbps: -1"),
            "p.yaml:6: floors[0].busbw_gbps: -1 is out of range (accepted: GB/s above 0)");
  EXPECT_EQ(OneProblem("busbw_gbps: 2.5", "busbw_gbps: fast"),
            "p.yaml:6: floors[0].busbw_gbps: expected a number, got a string (\"fast\") (accepted: GB/s above 0)");
  EXPECT_EQ(OneProblem("fraction: 0.6", "fraction: 1.5"),
            "p.yaml:7: floors[1].fraction: 1.5 is out of range (accepted: a share above 0, at most 1)");
  EXPECT_EQ(OneProblem("fraction_of: best_pair", "fraction_of: best_rack"),
            "p.yaml:7: floors[1].fraction_of: 'best_rack' is not a measured peak (accepted: best_pair, best_host)");
  EXPECT_EQ(OneProblem("size: 1M, fraction", "size: 2M, fraction"),
            "p.yaml:7: floors[1].size: '2M' is not among sizes");
  EXPECT_EQ(OneProblem("p99_over_p50: 5", "p99_over_p50: 0.5"),
            "p.yaml:10: ceilings[1].p99_over_p50: 0.5 is out of range (accepted: a ratio of at least 1)");
  EXPECT_EQ(OneProblem("repeats: 3", "repeats: 0"), "p.yaml:11: repeats: 0 is out of range (accepted: 1 to 100)");
  EXPECT_EQ(OneProblem("time_budget_s: 90", "time_budget_s: 0"),
            "p.yaml:12: time_budget_s: 0 is out of range (accepted: seconds above 0)");
  EXPECT_EQ(OneProblem("phases: [pairs, cluster, host]", "phases: [pairs, cluster, hots]"),
            "p.yaml:13: phases: 'hots' is not a phase (accepted: cluster, host, bisection, pairs)");
  EXPECT_EQ(OneProblem("rounds: 7", "rounds: 0"), "p.yaml:14: pairs.rounds: 0 is out of range (accepted: 1 to 1000)");
  EXPECT_EQ(OneProblem("hosts: 4", "hosts: four"),
            "p.yaml:15: preflight.hosts: expected a whole number, got a string (\"four\") (accepted: 1 or more)");
  EXPECT_EQ(OneProblem("interface: eth0", "interface: \"eth 0\""),
            "p.yaml:15: preflight.interface: 'eth 0' is not an interface name (accepted: an interface name like eth0)");
  EXPECT_EQ(OneProblem("repeats: 3", "repeat: 3"),
            "p.yaml:11: repeat: unknown key (accepted: name, description, backend, ops, sizes, floors, ceilings, "
            "repeats, time_budget_s, phases, pairs, straggler, drift, bisection, confirm, preflight)");
}

TEST(ProfileTest, Bisection) {
  std::string text = kGood;
  text.replace(text.find("phases: [pairs, cluster, host]"), 30, "phases: [pairs, bisection, cluster, host]");
  text.replace(text.find("pairs: {rounds: 7, seed: 3}"), 27, "bisection: {block_fraction: 0.6}");
  auto p = ParseProfile(text, "p.yaml", kBackends);
  ASSERT_TRUE(p.ok()) << p.status().message();
  // Bisection before pairs: when it names one host clearly, the pairs rounds are not needed.
  EXPECT_EQ(p->phases, (std::vector<Phase>{Phase::kCluster, Phase::kHost, Phase::kBisection, Phase::kPairs}));
  EXPECT_DOUBLE_EQ(p->bisection.block_fraction, 0.6);
  EXPECT_DOUBLE_EQ(ParseProfile(kGood, "p.yaml", kBackends)->bisection.block_fraction, 0.7);  // the default
  EXPECT_EQ(OneProblem("pairs: {rounds: 7, seed: 3}", "bisection: {block_fraction: 1}"),
            "p.yaml:14: bisection.block_fraction: 1 is out of range (accepted: a share above 0, below 1)");
  EXPECT_EQ(OneProblem("pairs: {rounds: 7, seed: 3}", "bisection: {levels: 3}"),
            "p.yaml:14: bisection.levels: unknown key (accepted: block_fraction)");
  text.replace(text.find("hosts: 4"), 8, "hosts: 3");
  auto three = ParseProfile(text, "p.yaml", kBackends);
  ASSERT_FALSE(three.ok());
  EXPECT_EQ(three.status().message(),
            "p.yaml:15: preflight.hosts: 3: the bisection phase needs at least 4 hosts (two blocks of two)");
}

TEST(ProfileTest, WholeFileChecks) {
  EXPECT_EQ(OneProblem("busbw_gbps: 2.5, source", "busbw_gbps: 2.5, fraction: 0.5, source"),
            "p.yaml:6: floors[0]: give either busbw_gbps (declared) or fraction with fraction_of (measured), not both");
  EXPECT_EQ(OneProblem(", fraction_of: best_pair}", "}"),
            "p.yaml:7: floors[1].fraction_of: missing: a relative floor needs both");
  EXPECT_EQ(OneProblem("phase: pairs, op", "phase: bisection, op"),
            "p.yaml:6: floors[0].phase: 'bisection' is not among phases");
}

TEST(ProfileTest, RelativeFloorNeedsItsPhase) {
  std::string text = kGood;
  text.replace(text.find("phases: [pairs, cluster, host]"), 30, "phases: [cluster, host]");
  text.replace(text.find("phase: pairs, "), 14, "");
  auto p = ParseProfile(text, "p.yaml", kBackends);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "p.yaml:7: floors[1].fraction_of: 'best_pair' needs the pairs phase, which phases does not list");
}

TEST(ProfileTest, EveryProblemOfAFileAtOnce) {
  auto p = ParseProfile("backend: mpi\nops: bcast\nsizes: 1M\ntime_budget_s: -3\nphases: cluster\nextra: 1\n", "p.yaml",
                        kBackends);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(Lines(p.status()).size(), 4u) << p.status().message();
  auto missing = ParseProfile("backend: gloo\n", "p.yaml", kBackends);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("p.yaml:1: ops: missing"), std::string::npos) << missing.status().message();
}

TEST(ProfileTest, ShippedProfilesLoad) {
  for (const char* name : {"local-smoke", "virtual-cluster", "h100-8x-nvlink", "h100-2node-pairs"}) {
    const std::string path = std::string("configs/acceptance/") + name + ".yaml";
    auto p = LoadProfile(path, kBackends);
    EXPECT_TRUE(p.ok()) << path << ": " << p.status().message();
  }
  auto missing = LoadProfile("configs/acceptance/no-such.yaml", kBackends);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace commbench::accept
