#include "lib/launch/own_address.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

TEST(OwnAddress, LoopbackInterfaceAndRoute) {
  auto lo = InterfaceAddress("lo");
  ASSERT_TRUE(lo.ok()) << lo.status().message();
  EXPECT_EQ(*lo, "127.0.0.1");
  EXPECT_EQ(AddressTowards("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(AddressTowards("no-such-host.invalid"), "");
}

TEST(OwnAddress, AnUnknownInterfaceIsNamedWithTheAcceptedOnes) {
  auto bad = InterfaceAddress("eth-nope9");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("eth-nope9"), std::string::npos);
  EXPECT_NE(bad.status().message().find("lo"), std::string::npos);
}

TEST(OwnAddress, FirstNonLoopbackIsAnAddress) {
  const std::string a = FirstNonLoopbackAddress();
  EXPECT_FALSE(a.empty());
  EXPECT_NE(a.find('.'), std::string::npos);
}

}  // namespace
}  // namespace commbench
