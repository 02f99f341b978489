#include "lib/backend/nccl/versions.h"

#include <gtest/gtest.h>

namespace commbench::nccl {
namespace {

TEST(VersionsTest, NcclCodes) {
  EXPECT_EQ(NcclVersionString(22809), "2.28.9");
  EXPECT_EQ(NcclVersionString(21803), "2.18.3");
  EXPECT_EQ(NcclVersionString(2804), "2.8.4");  // before 2.9 the code had one digit less
  EXPECT_EQ(NcclVersionString(0), "");
}

TEST(VersionsTest, CudaCodes) {
  EXPECT_EQ(CudaVersionString(13000), "13.0");
  EXPECT_EQ(CudaVersionString(12080), "12.8");
  EXPECT_EQ(CudaVersionString(11020), "11.2");
  EXPECT_EQ(CudaVersionString(0), "");  // no driver
}

TEST(VersionsTest, DriverFromProc) {
  EXPECT_EQ(ParseNvidiaDriverVersion("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 "
                                     "22:23:09 UTC 2024\nGCC version:  gcc version 12.2.0\n"),
            "550.54.15");
  EXPECT_EQ(ParseNvidiaDriverVersion("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  "
                                     "Release Build  (dvs-builder@U16-I3-B03-4-3)  Sun Jul 27 07:09:38 UTC 2025\n"),
            "580.65.06");
  EXPECT_EQ(ParseNvidiaDriverVersion("NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104.05  Sat Aug 19\n"),
            "535.104.05");
  EXPECT_EQ(ParseNvidiaDriverVersion(""), "");
  EXPECT_EQ(ParseNvidiaDriverVersion("GCC version: gcc version 12.2.0\n"), "");
  // Only the first line: a version-looking token on the GCC line is not the driver's.
  EXPECT_EQ(ParseNvidiaDriverVersion("NVRM version: NVIDIA UNIX Kernel Module\nGCC version 12.2.0\n"), "");
}

}  // namespace
}  // namespace commbench::nccl
