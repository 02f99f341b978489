#include "lib/launch/host_settings.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

TEST(HostSettingsTest, CpusOutsideTheAffinityAreNamed) {
  EXPECT_TRUE(CheckCpus({"", "0", "0-1"}, {0, 1}).ok());
  Status s = CheckCpus({"0", "99"}, {0, 1});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "--cpus 99: CPU 99 is not available to this process (accepted: CPUs within 0-1)");
}

TEST(HostSettingsTest, HostMustBeBindableHere) {
  EXPECT_TRUE(CheckBindableHost("127.0.0.1").ok());
  EXPECT_TRUE(CheckBindableHost("localhost").ok());
  Status bad = CheckBindableHost("999.1.1.1");
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.message().rfind("--host '999.1.1.1': ", 0), 0u) << bad.message();
  // A well-formed address of another host (TEST-NET-1, never assigned here) cannot be bound.
  Status foreign = CheckBindableHost("192.0.2.1");
  EXPECT_NE(foreign.message().find("cannot bind"), std::string::npos) << foreign.message();
}

TEST(HostSettingsTest, UnknownInterfaceListsTheOnesThatExist) {
  EXPECT_TRUE(CheckInterface("lo").ok());
  Status s = CheckInterface("nosuch0");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("--iface 'nosuch0': no such interface (accepted: ", 0), 0u) << s.message();
  EXPECT_NE(s.message().find("lo"), std::string::npos);
}

}  // namespace
}  // namespace commbench
