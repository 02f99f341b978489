#include "lib/measure/host_peak.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
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
  // Any machine we run on copies memory and moves loopback TCP faster than 0.1 GB/s and slower than 1 TB/s, at
  // its best: a peak is the best seen (GetHostPeaks keeps maxima), and one 0.15 s try beside a busy loop and
  // another test's ranks on a 2-core CI host moved loopback TCP at 0.026 GB/s. So up to two more tries.
  HostPeaks best = *p;
  for (int retry = 0; retry < 2 && (best.memcpy_gbps <= 0.1 || best.tcp_loopback_gbps <= 0.1); ++retry) {
    StatusOr<HostPeaks> again = MeasureHostPeaks();
    ASSERT_TRUE(again.ok()) << again.status().message();
    best.memcpy_gbps = std::max(best.memcpy_gbps, again->memcpy_gbps);
    best.tcp_loopback_gbps = std::max(best.tcp_loopback_gbps, again->tcp_loopback_gbps);
  }
  EXPECT_GT(best.memcpy_gbps, 0.1);
  EXPECT_LT(best.memcpy_gbps, 1000);
  EXPECT_GT(best.tcp_loopback_gbps, 0.1);
  EXPECT_LT(best.tcp_loopback_gbps, 1000);
  // The budgets add up to 0.3 s; with allocation and page faults it stays well under a second on an idle host.
  // The bound leaves room for a CI host running other tests on the same cores.
  EXPECT_LT(s, 2.0);
  EXPECT_FALSE(p->from_cache);
  EXPECT_NE(p->cache_key.find('|'), std::string::npos);
}

TEST(HostPeakTest, CachesPerHostAndRefreshes) {
  HostPeakOptions o;
  o.cache_dir = TempDir("cache_a/nested");
  o.load_per_core = 0.1;  // a quiet host: its entry is final
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
  o.load_per_core = 0.1;
  ASSERT_TRUE(GetHostPeaks(o).ok());
  std::ofstream(o.cache_dir + "/host_peaks.json") << "{not json";
  StatusOr<HostPeaks> p = GetHostPeaks(o);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->from_cache);
  EXPECT_GT(p->memcpy_gbps, 0);
  EXPECT_TRUE(GetHostPeaks(o)->from_cache);
}

// The cache directory may come from a CI cache: a link planted at the cache's name is never written through (the
// peaks are measured and used, the link's target untouched), nor read from.
TEST(HostPeakTest, APlantedLinkAtTheCacheIsNeitherReadNorWrittenThrough) {
  HostPeakOptions o;
  o.cache_dir = TempDir("cache_link");
  o.load_per_core = 0.1;
  ASSERT_EQ(system(("mkdir -p " + o.cache_dir).c_str()), 0);
  const std::string victim = TempDir("victim.json");
  std::ofstream(victim) << "precious";
  ASSERT_EQ(symlink(victim.c_str(), (o.cache_dir + "/host_peaks.json").c_str()), 0);
  StatusOr<HostPeaks> p = GetHostPeaks(o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_FALSE(p->from_cache);
  EXPECT_TRUE(p->cache_file.empty());  // not cached
  std::ifstream in(victim);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "precious");
}

// An entry measured while the host was busy is a low estimate: re-measured once the host is quieter than it
// was, keeping the higher values; kept as it is while the host is as busy or busier.
TEST(HostPeakTest, PeaksMeasuredUnderLoadAreRemeasuredWhenQuieter) {
  HostPeakOptions o;
  o.cache_dir = TempDir("cache_c");
  o.load_per_core = 0.1;
  ASSERT_TRUE(GetHostPeaks(o).ok());  // creates the file with this host's key
  const std::string file = o.cache_dir + "/host_peaks.json";
  std::string key = HostPeakCacheKey();
  auto plant = [&](double gbps, double tcp, double load) {
    std::ofstream(file) << "{\"" << key << "\": {\"memcpy_gbps\": " << gbps << ", \"tcp_loopback_gbps\": " << tcp
                        << ", \"load_per_core\": " << load << "}}";
  };

  plant(0.001, 0.001, 5.0);  // taken at load 5 per core
  o.load_per_core = 9.0;     // busier now: nothing better to learn
  StatusOr<HostPeaks> busier = GetHostPeaks(o);
  ASSERT_TRUE(busier.ok());
  EXPECT_TRUE(busier->from_cache);
  EXPECT_DOUBLE_EQ(busier->memcpy_gbps, 0.001);
  EXPECT_DOUBLE_EQ(busier->load_per_core, 5.0);

  o.load_per_core = 0.2;  // quieter: measure again, keep the maxima, remember the lower load
  StatusOr<HostPeaks> quieter = GetHostPeaks(o);
  ASSERT_TRUE(quieter.ok());
  EXPECT_FALSE(quieter->from_cache);
  EXPECT_GT(quieter->memcpy_gbps, 0.001);
  EXPECT_GT(quieter->tcp_loopback_gbps, 0.001);
  StatusOr<HostPeaks> again = GetHostPeaks(o);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->from_cache);
  EXPECT_DOUBLE_EQ(again->load_per_core, 0.2);
  EXPECT_DOUBLE_EQ(again->memcpy_gbps, quieter->memcpy_gbps);

  plant(1000, 1000, 3.0);  // a busy entry above anything measurable now: the maxima keep it
  StatusOr<HostPeaks> kept = GetHostPeaks(o);
  ASSERT_TRUE(kept.ok());
  EXPECT_FALSE(kept->from_cache);
  EXPECT_DOUBLE_EQ(kept->memcpy_gbps, 1000);
  EXPECT_DOUBLE_EQ(kept->tcp_loopback_gbps, 1000);
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
