#include "lib/sweep/explain.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "lib/model/point_json.h"

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
  // Each A/B varies its own factor: the stream's partner keeps the pageable copy and the copy's partner the
  // legacy stream (the planner's product holds both), so the diagnosis can use each.
  EXPECT_EQ(a.spec.h2ds, (std::vector<H2dKind>{H2dKind::kPageable, H2dKind::kPinned}));
  EXPECT_EQ(a.reasons, (V{"--sync event: the A/B for a host sync every iteration",
                          "--stream dedicated: the A/B for legacy-default-stream serialisation",
                          "--h2d pinned: the A/B for pageable host-to-device copies"}));
  EXPECT_EQ(SpecToJson(a.spec)["explain_factors"],
            nlohmann::json::parse(R"([[["sync","event"]],[["stream","dedicated"]],[["h2d","pinned"]]])"));
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

// ---- Targeted --explain ----

// A planned series of `backend` allreduce 400 B points at group counts `groups`.
std::vector<Point> Series(std::vector<int> groups, DeviceKind device = DeviceKind::kCpu) {
  std::vector<Point> series;
  for (int g : groups) {
    Point p;
    p.backend = "gloo";
    p.bytes = 400;
    p.groups = g;
    p.device = device;
    series.push_back(p);
  }
  return series;
}

// A suspect of `rule` with the axes its A/B varies (as the rules declare them: AbFactor::axes; the app's test
// holds the two together).
Suspect Of(const std::string& rule, std::vector<Point> series) {
  static const std::map<std::string, V> kAxes = {
      {"cpu_oversubscription", {"cpus", "ranks_per_process"}},
      {"host_sync", {"sync", "graph"}},
      {"legacy_default_stream", {"stream"}},
      {"pageable_h2d", {"h2d"}},
      {"shared_bandwidth", {"concurrency"}},
      {"wakeup_latency", {"pin"}},
      {"world_barrier", {"sync"}},
  };
  auto it = kAxes.find(rule);
  return Suspect{rule, std::move(series), it == kAxes.end() ? V{} : it->second};
}

std::vector<int> Groups(const std::vector<Point>& points) {
  std::vector<int> out;
  for (const Point& p : points) out.push_back(p.groups);
  return out;
}

TEST(TargetedAbTest, EachCauseVariesItsOwnFactorOnly) {
  TargetedAbOptions options;
  options.affinity = "0-1";
  options.max_group_counts = 0;
  std::vector<Point> series = Series({1, 2, 3});

  auto cpus = AbForSuspect(Of("cpu_oversubscription", series), options);
  ASSERT_TRUE(cpus.has_value());
  EXPECT_EQ(cpus->reason, "--cpus 0: the A/B for CPU oversubscription (one core vs 0-1)");
  EXPECT_EQ(ExplainFactorToJson(cpus->factor), nlohmann::json::parse(R"([["cpus","0"]])"));
  ASSERT_EQ(cpus->points.size(), 3u);
  for (size_t i = 0; i < series.size(); ++i) {
    Point expected = series[i];
    expected.cpus = "0";
    EXPECT_EQ(cpus->points[i].Id(), expected.Id());  // nothing else changed
  }

  auto pin = AbForSuspect(Of("wakeup_latency", series), options);
  ASSERT_TRUE(pin.has_value());
  EXPECT_EQ(pin->points[0].pin, Pin::kCompact);
  EXPECT_EQ(pin->points[0].cpus, "");

  auto turns = AbForSuspect(Of("shared_bandwidth", series), options);
  ASSERT_TRUE(turns.has_value());
  EXPECT_EQ(turns->points[2].concurrency, Concurrency::kSequential);
  EXPECT_EQ(turns->points[2].pin, Pin::kNone);

  for (Point& p : series) p.sync = Sync::kWorldBarrier;
  auto barrier = AbForSuspect(Of("world_barrier", series), options);
  ASSERT_TRUE(barrier.has_value());
  EXPECT_EQ(barrier->points[1].sync, Sync::kNone);
  EXPECT_EQ(barrier->reason, "--sync none: the A/B for a world-wide barrier per iteration");
}

TEST(TargetedAbTest, GpuCausesVaryTheirGpuFactor) {
  std::vector<Point> series = Series({1, 2}, DeviceKind::kGpu);
  for (Point& p : series) {
    p.gpu.stream = StreamKind::kLegacyDefault;
    p.sync = Sync::kStream;
  }
  auto stream = AbForSuspect(Of("legacy_default_stream", series), {});
  ASSERT_TRUE(stream.has_value());
  EXPECT_EQ(stream->points[0].gpu.stream, StreamKind::kDedicated);
  EXPECT_EQ(stream->points[0].sync, Sync::kStream);
  auto sync = AbForSuspect(Of("host_sync", series), {});
  ASSERT_TRUE(sync.has_value());
  EXPECT_EQ(sync->points[0].sync, Sync::kEvent);
  EXPECT_EQ(sync->points[0].gpu.stream, StreamKind::kLegacyDefault);
  for (Point& p : series) p.gpu.h2d = H2dKind::kPageable;
  auto copy = AbForSuspect(Of("pageable_h2d", series), {});
  ASSERT_TRUE(copy.has_value());
  EXPECT_EQ(copy->reason, "--h2d pinned: the A/B for pageable host-to-device copies");
  EXPECT_EQ(copy->points[0].gpu.h2d, H2dKind::kPinned);
  EXPECT_EQ(copy->points[0].gpu.stream, StreamKind::kLegacyDefault);
  EXPECT_EQ(copy->points[0].sync, Sync::kStream);
  for (Point& p : series) p.gpu.h2d = H2dKind::kPinned;  // already pinned: nothing to add
  EXPECT_FALSE(AbForSuspect(Of("pageable_h2d", series), {}).has_value());
}

TEST(TargetedAbTest, NoAbForCausesWithoutOneOrNothingToAdd) {
  TargetedAbOptions options;
  options.affinity = "0-1";
  EXPECT_FALSE(AbForSuspect(Of("straggler", Series({1, 2})), options).has_value());
  EXPECT_FALSE(AbForSuspect(Of("setup_growth", Series({1, 2})), options).has_value());
  EXPECT_FALSE(AbForSuspect(Of("no_such_rule", Series({1, 2})), options).has_value());
  EXPECT_FALSE(AbForSuspect(Of("cpu_oversubscription", {}), options).has_value());
  // One core: no fewer cores to compare with. Already pinned: the pin A/B is the unpinned twin.
  options.affinity = "0";
  EXPECT_FALSE(AbForSuspect(Of("cpu_oversubscription", Series({1, 2})), options).has_value());
  std::vector<Point> pinned = Series({1, 2});
  for (Point& p : pinned) p.pin = Pin::kCompact;
  EXPECT_FALSE(AbForSuspect(Of("wakeup_latency", pinned), options).has_value());
  // A barrier A/B needs a barrier.
  EXPECT_FALSE(AbForSuspect(Of("world_barrier", Series({1, 2})), options).has_value());
  EXPECT_EQ(AxesWithAb(), (V{"sync", "stream", "h2d", "cpus", "pin", "concurrency"}));
}

// Scenario A's series (G=1..8): the B side at the ends and the middle, so phase 2 costs 3 points per cause.
TEST(TargetedAbTest, BoundedToTheEndsAndTheMiddle) {
  TargetedAbOptions options;
  options.affinity = "0-1";
  std::vector<Point> shuffled = Series({8, 1, 2, 3, 4, 5, 6, 7});
  auto ab = AbForSuspect(Of("cpu_oversubscription", shuffled), options);
  ASSERT_TRUE(ab.has_value());
  EXPECT_EQ(Groups(ab->points), (std::vector<int>{1, 5, 8}));
  options.max_group_counts = 2;
  EXPECT_EQ(Groups(AbForSuspect(Of("cpu_oversubscription", shuffled), options)->points), (std::vector<int>{1, 8}));
  options.max_group_counts = 5;
  EXPECT_EQ(Groups(AbForSuspect(Of("cpu_oversubscription", shuffled), options)->points),
            (std::vector<int>{1, 3, 5, 6, 8}));
  options.max_group_counts = 0;
  EXPECT_EQ(AbForSuspect(Of("cpu_oversubscription", shuffled), options)->points.size(), 8u);
  options.max_group_counts = 3;
  EXPECT_EQ(Groups(AbForSuspect(Of("cpu_oversubscription", Series({1, 2})), options)->points),
            (std::vector<int>{1, 2}));
}

}  // namespace
}  // namespace commbench
