#include "lib/diagnose/explain.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace commbench {
namespace diagnose {
namespace {

using V = std::vector<std::string>;

TEST(Explain, DefaultCpuSweepAddsOneCoreAndPinning) {
  ExplainSpec s;
  s.backends = {"gloo"};
  s.sync = {"none"};
  s.pin = {"none"};
  s.cpus = {""};
  s.concurrency = {"concurrent"};
  s.multiple_groups = true;
  s.affinity = "0-1";
  ExplainAdditions a = ExplainAxes(s);
  EXPECT_EQ(a.cpus, V{"0"});
  EXPECT_EQ(a.pin, V{"compact"});
  EXPECT_EQ(a.concurrency, V{"sequential"});
  EXPECT_TRUE(a.sync.empty());
  EXPECT_TRUE(a.stream.empty());
  EXPECT_EQ(a.reasons.size(), 3u);
  // One group count: no groups to share anything.
  s.multiple_groups = false;
  EXPECT_TRUE(ExplainAxes(s).concurrency.empty());
}

TEST(Explain, WorldBarrierGetsNone) {
  ExplainSpec s;
  s.sync = {"world-barrier"};
  s.pin = {"compact"};
  s.cpus = {"0-1"};
  s.affinity = "0-1";
  ExplainAdditions a = ExplainAxes(s);
  EXPECT_EQ(a.sync, V{"none"});
  EXPECT_EQ(a.cpus, V{"0"});  // "0-1" is the whole affinity: unrestricted
  EXPECT_TRUE(a.pin.empty());
  s.sync = {"world-barrier", "none"};
  EXPECT_TRUE(ExplainAxes(s).sync.empty());
}

TEST(Explain, RestrictedCpusGetTheWholeSet) {
  ExplainSpec s;
  s.cpus = {"0"};
  s.pin = {"spread"};
  s.affinity = "0-3";
  EXPECT_EQ(ExplainAxes(s).cpus, V{"0-3"});
  s.cpus = {"0", "0-3"};
  EXPECT_TRUE(ExplainAxes(s).empty());
}

TEST(Explain, SingleCoreMachineCannotRestrictFurther) {
  ExplainSpec s;
  s.cpus = {""};
  s.pin = {"compact"};
  s.affinity = "0";
  EXPECT_TRUE(ExplainAxes(s).empty());
}

TEST(Explain, GpuAxes) {
  ExplainSpec s;
  s.backends = {"nccl"};
  s.sync = {"stream"};
  s.stream = {"legacy-default"};
  s.h2d = {"pageable"};
  s.pin = {"compact"};
  ExplainAdditions a = ExplainAxes(s);
  EXPECT_EQ(a.sync, V{"event"});
  EXPECT_EQ(a.stream, V{"dedicated"});
  EXPECT_EQ(a.h2d, V{"pinned"});
  // The same axes on a CPU backend add nothing GPU-specific.
  s.backends = {"gloo"};
  a = ExplainAxes(s);
  EXPECT_TRUE(a.stream.empty());
  EXPECT_TRUE(a.h2d.empty());
  EXPECT_TRUE(a.sync.empty());
}

TEST(Explain, OverTheRecordedSpec) {
  // The spec as `commbench sweep --groups 1..8 --sync world-barrier` records it.
  nlohmann::json spec = {{"backends", {"gloo"}},     {"syncs", {"world-barrier"}}, {"pins", {"none"}},   {"cpus", {""}},
                         {"streams", {"dedicated"}}, {"h2ds", {"none"}},           {"groups", {1, 2, 3}},
                         {"concurrencies", {"concurrent"}}};
  std::vector<std::string> reasons;
  nlohmann::json out = WithExplainAxes(spec, "0-1", &reasons);
  EXPECT_EQ(out["syncs"], nlohmann::json({"world-barrier", "none"}));
  EXPECT_EQ(out["pins"], nlohmann::json({"none", "compact"}));
  EXPECT_EQ(out["cpus"], nlohmann::json({"", "0"}));
  EXPECT_EQ(out["streams"], nlohmann::json({"dedicated"}));  // CPU backend: GPU axes untouched
  EXPECT_EQ(out["groups"], spec["groups"]);
  EXPECT_EQ(out["concurrencies"], nlohmann::json({"concurrent", "sequential"}));
  EXPECT_EQ(reasons.size(), 4u);
  // Applying it twice adds nothing more: the A/B values are already there.
  EXPECT_EQ(WithExplainAxes(out, "0-1"), out);
}

}  // namespace
}  // namespace diagnose
}  // namespace commbench
