#include "lib/diagnose/explain.h"

#include <gtest/gtest.h>

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
  s.affinity = "0-1";
  ExplainAdditions a = ExplainAxes(s);
  EXPECT_EQ(a.cpus, V{"0"});
  EXPECT_EQ(a.pin, V{"compact"});
  EXPECT_TRUE(a.sync.empty());
  EXPECT_TRUE(a.stream.empty());
  EXPECT_EQ(a.reasons.size(), 2u);
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

}  // namespace
}  // namespace diagnose
}  // namespace commbench
