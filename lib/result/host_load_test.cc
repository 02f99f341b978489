#include "lib/result/host_load.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace commbench::result {
namespace {

HostLoad Example() {
  HostLoad h;
  h.window_s = 0.5;
  h.cpu_busy_s = 0.9;
  h.ranks_cpu_s = 0.4;
  h.own_cpu_s = 0.45;
  h.outside_cpu_s = 0.42;
  h.outside_share = 0.42;
  h.monitor_cpu_s = 0.006;
  h.per_cpu = {{0, 0.5, 0.4}, {1, 0.4, 0.02}};
  h.top = {{4242, "spin (x)", 0.4, {0}}, {7, "kworker/1:0", 0.02, {1}}};
  return h;
}

TEST(HostLoad, RoundTripsThroughJson) {
  const HostLoad h = Example();
  auto back = ReadHostLoad(HostLoadToJson(h));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(HostLoadToJson(*back), HostLoadToJson(h));
  EXPECT_DOUBLE_EQ(back->TopShare(), 0.8);
  EXPECT_EQ(back->top[0].comm, "spin (x)");
  EXPECT_EQ(back->top[0].cpus, std::vector<int>{0});
}

TEST(HostLoad, ReaderNamesTheBadField) {
  nlohmann::json j = HostLoadToJson(Example());
  j["top"][1]["cpu_s"] = "lots";
  auto bad = ReadHostLoad(j, "points[3].host_load");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "points[3].host_load.top[1].cpu_s: expected a number, got a string");
  j = HostLoadToJson(Example());
  j.erase("outside_cpu_s");
  EXPECT_FALSE(ReadHostLoad(j).ok());
}

// Short-lived work: the unattributed part and a process's reaped children round-trip; files written before they
// were recorded read them as 0.
TEST(HostLoad, ShortLivedWorkRoundTripsAndOlderFilesReadItAsNone) {
  HostLoad h = Example();
  h.unattributed_cpu_s = 0.1;
  h.per_cpu[0].unattributed_s = 0.1;
  h.top[0].children_cpu_s = 0.3;
  auto back = ReadHostLoad(HostLoadToJson(h));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_DOUBLE_EQ(back->unattributed_cpu_s, 0.1);
  EXPECT_DOUBLE_EQ(back->per_cpu[0].unattributed_s, 0.1);
  EXPECT_DOUBLE_EQ(back->top[0].children_cpu_s, 0.3);
  EXPECT_DOUBLE_EQ(back->ShortLivedCpuS(), 0.4);
  nlohmann::json old = HostLoadToJson(h);
  old.erase("unattributed_cpu_s");
  old["per_cpu"][0].erase("unattributed_s");
  old["top"][0].erase("children_cpu_s");
  auto read_old = ReadHostLoad(old);
  ASSERT_TRUE(read_old.ok()) << read_old.status().message();
  EXPECT_EQ(read_old->ShortLivedCpuS(), 0);
  old["unattributed_cpu_s"] = -1;
  EXPECT_FALSE(ReadHostLoad(old).ok());
}

TEST(HostLoad, TopShareIsZeroWithoutOutsideProcesses) {
  HostLoad h;
  h.window_s = 1;
  EXPECT_EQ(h.TopShare(), 0);
}

}  // namespace
}  // namespace commbench::result
