#include "lib/sweep/explain.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lib/sweep/point_json.h"

namespace commbench {
namespace {

using V = std::vector<std::string>;

// A spec whose explain axes are empty and with one group count, so that each test states what matters.
SweepSpec Bare() {
  SweepSpec s;
  s.syncs.clear();
  s.pins.clear();
  s.cpus.clear();
  s.streams.clear();
  s.h2ds.clear();
  s.concurrencies.clear();
  s.groups = {1};
  return s;
}

std::vector<BackendCapabilities> Cpu() { return {BackendCapabilities{}}; }
std::vector<BackendCapabilities> Gpu() {
  BackendCapabilities gpu;
  gpu.device = DeviceKind::kGpu;
  return {gpu};
}

TEST(ExplainTest, DefaultCpuSweepAddsOneCoreAndPinning) {
  SweepSpec s = Bare();
  s.syncs = {Sync::kNone};
  s.pins = {Pin::kNone};
  s.cpus = {""};
  s.concurrencies = {Concurrency::kConcurrent};
  s.groups = {1, 2};
  ExplainExpansion a = ExpandForExplain(s, Cpu(), "0-1");
  EXPECT_EQ(a.spec.cpus, (V{"", "0"}));
  EXPECT_EQ(a.spec.pins, (std::vector<Pin>{Pin::kNone, Pin::kCompact}));
  EXPECT_EQ(a.spec.concurrencies, (std::vector<Concurrency>{Concurrency::kConcurrent, Concurrency::kSequential}));
  EXPECT_EQ(a.spec.syncs, s.syncs);
  EXPECT_EQ(a.spec.streams, s.streams);
  EXPECT_EQ(a.reasons, (V{"--cpus 0: the A/B for CPU oversubscription (one core vs 0-1)",
                          "--concurrency sequential: the A/B for groups sharing one bandwidth (groups take turns)",
                          "--pin compact: the A/B for wake-up latency and migrations"}));
  EXPECT_EQ(SpecToJson(a.spec)["explain_factors"],
            nlohmann::json::parse(R"([[["pin","compact"]],[["cpus","0"]],[["concurrency","sequential"]]])"));
  // One group count: no groups to share anything.
  s.groups = {1};
  EXPECT_EQ(ExpandForExplain(s, Cpu(), "0-1").spec.concurrencies, s.concurrencies);
}

TEST(ExplainTest, WorldBarrierGetsNone) {
  SweepSpec s = Bare();
  s.syncs = {Sync::kWorldBarrier};
  s.pins = {Pin::kCompact};
  s.cpus = {"0-1"};
  ExplainExpansion a = ExpandForExplain(s, {}, "0-1");
  EXPECT_EQ(a.spec.syncs, (std::vector<Sync>{Sync::kWorldBarrier, Sync::kNone}));
  EXPECT_EQ(a.spec.cpus, (V{"0-1", "0"}));  // "0-1" is the whole affinity: unrestricted
  EXPECT_EQ(a.spec.pins, s.pins);
  s.syncs = {Sync::kWorldBarrier, Sync::kNone};
  EXPECT_EQ(ExpandForExplain(s, {}, "0-1").spec.syncs, s.syncs);
}

TEST(ExplainTest, RestrictedCpusGetTheWholeSet) {
  SweepSpec s = Bare();
  s.cpus = {"0"};
  s.pins = {Pin::kSpread};
  ExplainExpansion a = ExpandForExplain(s, {}, "0-3");
  EXPECT_EQ(a.spec.cpus, (V{"0", "0-3"}));
  EXPECT_EQ(a.reasons, V{"--cpus 0-3: the A/B for CPU oversubscription (all cores)"});
  s.cpus = {"0", "0-3"};
  ExplainExpansion none = ExpandForExplain(s, {}, "0-3");
  EXPECT_TRUE(none.reasons.empty());
  EXPECT_TRUE(none.spec.explain_factors.empty());
}

TEST(ExplainTest, SingleCoreMachineCannotRestrictFurther) {
  SweepSpec s = Bare();
  s.cpus = {""};
  s.pins = {Pin::kCompact};
  ExplainExpansion a = ExpandForExplain(s, {}, "0");
  EXPECT_TRUE(a.reasons.empty());
  EXPECT_EQ(a.spec.cpus, s.cpus);
}

TEST(ExplainTest, GpuAxes) {
  SweepSpec s = Bare();
  s.syncs = {Sync::kStream};
  s.streams = {StreamKind::kLegacyDefault};
  s.h2ds = {H2dKind::kPageable};
  s.pins = {Pin::kCompact};
  ExplainExpansion a = ExpandForExplain(s, Gpu(), "");
  EXPECT_EQ(a.spec.syncs, (std::vector<Sync>{Sync::kStream, Sync::kEvent}));
  EXPECT_EQ(a.spec.streams, (std::vector<StreamKind>{StreamKind::kLegacyDefault, StreamKind::kDedicated}));
  // The stream A/B varies the stream only: the partner keeps the pageable copy, so the diagnosis can use it.
  EXPECT_EQ(a.spec.h2ds, (std::vector<H2dKind>{H2dKind::kPageable}));
  EXPECT_EQ(a.reasons, (V{"--sync event: the A/B for a host sync every iteration",
                          "--stream dedicated: the A/B for legacy-default-stream serialisation"}));
  EXPECT_EQ(SpecToJson(a.spec)["explain_factors"],
            nlohmann::json::parse(R"([[["sync","event"]],[["stream","dedicated"]]])"));
  // The same axes on a CPU backend add nothing GPU-specific.
  ExplainExpansion cpu = ExpandForExplain(s, Cpu(), "");
  EXPECT_EQ(cpu.spec.streams, s.streams);
  EXPECT_EQ(cpu.spec.h2ds, s.h2ds);
  EXPECT_EQ(cpu.spec.syncs, s.syncs);
  EXPECT_TRUE(cpu.reasons.empty());
}

// `commbench sweep --groups 1..3 --sync world-barrier --explain` on two cores.
TEST(ExplainTest, OverTheDefaultSpec) {
  SweepSpec s;
  s.groups = {1, 2, 3};
  s.syncs = {Sync::kWorldBarrier};
  ExplainExpansion a = ExpandForExplain(s, Cpu(), "0-1");
  nlohmann::json out = SpecToJson(a.spec);
  EXPECT_EQ(out["syncs"], nlohmann::json({"world-barrier", "none"}));
  EXPECT_EQ(out["pins"], nlohmann::json({"none", "compact"}));
  EXPECT_EQ(out["cpus"], nlohmann::json({"", "0"}));
  EXPECT_EQ(out["streams"], nlohmann::json({"dedicated"}));  // CPU backend: GPU axes untouched
  EXPECT_EQ(out["groups"], nlohmann::json({1, 2, 3}));
  EXPECT_EQ(out["concurrencies"], nlohmann::json({"concurrent", "sequential"}));
  EXPECT_EQ(a.reasons.size(), 4u);
  EXPECT_EQ(out["explain_factors"], nlohmann::json::parse(R"([[["sync","none"]],[["pin","compact"]],
                                                             [["cpus","0"]],[["concurrency","sequential"]]])"));
  // Applying it twice adds nothing more: the A/B values are already there.
  ExplainExpansion again = ExpandForExplain(a.spec, Cpu(), "0-1");
  EXPECT_TRUE(again.reasons.empty());
  EXPECT_EQ(SpecToJson(again.spec), out);
}

}  // namespace
}  // namespace commbench
