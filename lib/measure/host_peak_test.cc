#include "lib/measure/host_peak.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

namespace commbench {
namespace {

std::string TempDir(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  return std::string(t != nullptr ? t : "/tmp") + "/" + name;
}

TEST(HostPeakTest, MeasuresBothPeaksInUnderASecond) {
  auto t0 = std::chrono::steady_clock::now();
  StatusOr<HostPeaks> p = MeasureHostPeaks();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(p.ok()) << p.status().message();
  // Any machine we run on copies memory and moves loopback TCP faster than 0.1 GB/s and slower than 1 TB/s.
  EXPECT_GT(p->memcpy_gbps, 0.1);
  EXPECT_LT(p->memcpy_gbps, 1000);
  EXPECT_GT(p->tcp_loopback_gbps, 0.1);
  EXPECT_LT(p->tcp_loopback_gbps, 1000);
  // The budgets add up to 0.3 s; with allocation and page faults it stays well under a second on an idle host.
  // The bound leaves room for a CI host running other tests on the same cores.
  EXPECT_LT(s, 2.0);
  EXPECT_FALSE(p->from_cache);
  EXPECT_NE(p->cache_key.find('|'), std::string::npos);
}

TEST(HostPeakTest, CachesPerHostAndRefreshes) {
  HostPeakOptions o;
  o.cache_dir = TempDir("cache_a/nested");
  StatusOr<HostPeaks> first = GetHostPeaks(o);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_FALSE(first->from_cache);
  EXPECT_EQ(first->cache_file, o.cache_dir + "/host_peaks.json");

  auto t0 = std::chrono::steady_clock::now();
  StatusOr<HostPeaks> second = GetHostPeaks(o);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->from_cache);
  EXPECT_DOUBLE_EQ(second->memcpy_gbps, first->memcpy_gbps);
  EXPECT_DOUBLE_EQ(second->tcp_loopback_gbps, first->tcp_loopback_gbps);
  EXPECT_LT(s, 0.1);  // no measurement

  o.refresh = true;
  StatusOr<HostPeaks> third = GetHostPeaks(o);
  ASSERT_TRUE(third.ok());
  EXPECT_FALSE(third->from_cache);
}

TEST(HostPeakTest, CorruptCacheIsRemeasured) {
  HostPeakOptions o;
  o.cache_dir = TempDir("cache_b");
  ASSERT_TRUE(GetHostPeaks(o).ok());
  std::ofstream(o.cache_dir + "/host_peaks.json") << "{not json";
  StatusOr<HostPeaks> p = GetHostPeaks(o);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->from_cache);
  EXPECT_GT(p->memcpy_gbps, 0);
  EXPECT_TRUE(GetHostPeaks(o)->from_cache);
}

TEST(HostPeakTest, DefaultDirFollowsXdgThenHome) {
  setenv("XDG_CACHE_HOME", "/x/cache", 1);
  EXPECT_EQ(DefaultHostPeakCacheDir(), "/x/cache/commbench");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(DefaultHostPeakCacheDir(), "/home/u/.cache/commbench");
}

}  // namespace
}  // namespace commbench
