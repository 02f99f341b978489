#include "lib/measure/host_reference.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace commbench {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

result::HostReference Measure(int n) {
  result::HostReference r;
  for (int i = 0; i < n; ++i) {
    auto s = MeasureHostReference();
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (s.ok()) r.Add(*s);
  }
  return r;
}

TEST(HostReferenceTest, EachSampleTimesBothParts) {
  const result::HostReference r = Measure(5);
  ASSERT_EQ(r.size(), 5u);
  const std::vector<double> totals = r.totals_s();
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_GT(r.loopback_s[i], 0);
    EXPECT_GT(r.copy_s[i], 0);
    EXPECT_DOUBLE_EQ(totals[i], r.loopback_s[i] + r.copy_s[i]);
    EXPECT_LT(totals[i], 2.0);  // a few milliseconds on an idle host; bounded even on a busy one
  }
}

bool WriteTo(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

// A host that gives the job less CPU is a slower host: the same workload, in a child process whose cgroup may run
// 2 ms of CPU every 100 ms, takes longer by far than outside it. The cgroup (v1 `cpu`, root) is made and removed
// here; where it cannot be, the test skips.
TEST(HostReferenceTest, ACpuLimitedHostMeasuresSlower) {
  const std::string group = "/sys/fs/cgroup/cpu/commbench-reference-test-" + std::to_string(::getpid());
  if (::mkdir(group.c_str(), 0755) != 0) GTEST_SKIP() << "no cgroup v1 cpu controller to write here (" << group << ")";
  const bool limited = WriteTo(group + "/cpu.cfs_period_us", "100000") && WriteTo(group + "/cpu.cfs_quota_us", "2000");
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const double free_median = Median(Measure(9).totals_s());
  const pid_t child = limited ? ::fork() : -1;
  if (child == 0) {
    ::close(pipe_fds[0]);
    const bool moved = WriteTo(group + "/cgroup.procs", std::to_string(::getpid()));
    double median = -1;
    if (moved) {
      result::HostReference r;
      for (int i = 0; i < 5; ++i) {
        auto s = MeasureHostReference();
        if (s.ok()) r.Add(*s);
      }
      if (r.size() == 5) median = Median(r.totals_s());
    }
    (void)!::write(pipe_fds[1], &median, sizeof(median));
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  double limited_median = -1;
  if (child > 0) {
    (void)!::read(pipe_fds[0], &limited_median, sizeof(limited_median));
    int status = 0;
    ::waitpid(child, &status, 0);
  }
  ::close(pipe_fds[0]);
  ::rmdir(group.c_str());
  ASSERT_TRUE(limited) << "could not set the cgroup's quota";
  ASSERT_GT(limited_median, 0) << "the child could not join the cgroup or measure";
  std::printf("reference median: %.2f ms free, %.2f ms at 2 %% of a CPU\n", free_median * 1e3, limited_median * 1e3);
  EXPECT_GT(limited_median, 2 * free_median);
}

}  // namespace
}  // namespace commbench
