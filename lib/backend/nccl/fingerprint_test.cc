#include "lib/backend/nccl/fingerprint.h"

#include <gtest/gtest.h>

#include <regex>

namespace commbench::nccl {
namespace {

TEST(FingerprintTest, AvailableOrSaysWhyNot) {
  GpuInfo info = GpuFingerprint();
  std::printf(
      "gpu: available=%d reason='%s' name='%s' driver='%s' driver_cuda='%s' cuda_runtime='%s' nccl='%s' "
      "nccl_built='%s' cc='%s' devices=%d\n",
      info.available(), info.unavailable_reason.c_str(), info.name.c_str(), info.driver.c_str(),
      info.driver_cuda.c_str(), info.cuda_runtime.c_str(), info.nccl.c_str(), info.nccl_built.c_str(),
      info.compute_capability.c_str(), info.device_count);
  if (info.available()) {
    EXPECT_FALSE(info.name.empty());
    EXPECT_GT(info.device_count, 0);
    EXPECT_GT(info.memory_bytes, 0u);
    EXPECT_TRUE(std::regex_match(info.compute_capability, std::regex(R"(\d+\.\d+)")));
  } else {
    EXPECT_TRUE(info.name.empty());
    EXPECT_EQ(info.device_count, 0);
  }
#ifdef COMMBENCH_HAVE_CUDA
  // Known without a device: the loaded runtime and NCCL.
  EXPECT_TRUE(std::regex_match(info.cuda_runtime, std::regex(R"(\d+\.\d+)"))) << info.cuda_runtime;
  EXPECT_TRUE(std::regex_match(info.nccl, std::regex(R"(\d+\.\d+\.\d+)"))) << info.nccl;
  EXPECT_TRUE(std::regex_match(info.nccl_built, std::regex(R"(\d+\.\d+\.\d+)"))) << info.nccl_built;
  if (!info.available()) {
    EXPECT_NE(info.unavailable_reason.find("cuda"), std::string::npos);
  }
#else
  EXPECT_EQ(info.unavailable_reason.rfind("built without CUDA: ", 0), 0u) << info.unavailable_reason;
  EXPECT_TRUE(info.nccl.empty());
#endif
}

}  // namespace
}  // namespace commbench::nccl
