#include "lib/result/host_reference.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace commbench::result {
namespace {

HostReference TwoSamples() {
  HostReference r;
  r.Add({0.0031, 0.0004});
  r.Add({0.0035, 0.0005});
  return r;
}

TEST(HostReferenceJsonTest, RoundTrips) {
  const HostReference r = TwoSamples();
  auto back = HostReferenceFromJson(nlohmann::json::parse(HostReferenceToJson(r).dump()), "base.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->loopback_s, r.loopback_s);
  EXPECT_EQ(back->copy_s, r.copy_s);
  EXPECT_TRUE(back->workload == r.workload);
  EXPECT_DOUBLE_EQ(back->totals_s()[1], 0.0040);
}

TEST(HostReferenceJsonTest, RefusesABrokenBlockNamingTheField) {
  nlohmann::json j = HostReferenceToJson(TwoSamples());
  j["copy_s"] = {0.0004};
  auto uneven = HostReferenceFromJson(j, "base.json");
  ASSERT_FALSE(uneven.ok());
  EXPECT_NE(uneven.status().message().find("base.json: host_reference: loopback_s has 2 samples, copy_s 1"),
            std::string::npos)
      << uneven.status().message();

  j = HostReferenceToJson(TwoSamples());
  j["loopback_s"][0] = -1;
  auto negative = HostReferenceFromJson(j, "base.json");
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("accepted: a time > 0 s"), std::string::npos);

  j = HostReferenceToJson(TwoSamples());
  j["schema_version"] = 2;
  auto future = HostReferenceFromJson(j, "base.json");
  ASSERT_FALSE(future.ok());
  EXPECT_NE(future.status().message().find("host_reference.schema_version is 2 (accepted: 1)"), std::string::npos);

  j = HostReferenceToJson(TwoSamples());
  j.erase("workload");
  EXPECT_FALSE(HostReferenceFromJson(j, "base.json").ok());
}

}  // namespace
}  // namespace commbench::result
