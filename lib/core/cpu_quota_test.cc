// The cgroup CPU limit: hierarchies laid out as files (v1 and v2, a container's own view, nested limits), and a
// real cgroup v1 child with a quota that a forked process joins.
#include "lib/core/cpu_quota.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lib/core/temp_dir.h"

namespace commbench {
namespace {

namespace fs = std::filesystem;

void Write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

const char kV1Mounts[] =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n";
const char kV2Mounts[] = "30 23 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";

TEST(CpuQuotaTest, V1TakesTheTightestLimitOnThePathUp) {
  TempDir root("cpu-quota-");
  const std::string base = root.path() + "/sys/fs/cgroup/cpu,cpuacct";
  Write(base + "/cpu.cfs_quota_us", "-1\n");
  Write(base + "/cpu.cfs_period_us", "100000\n");
  Write(base + "/job/cpu.cfs_quota_us", "150000\n");  // the job: 1.5 CPUs
  Write(base + "/job/cpu.cfs_period_us", "100000\n");
  Write(base + "/job/step/cpu.cfs_quota_us", "-1\n");  // the step below it sets none of its own
  Write(base + "/job/step/cpu.cfs_period_us", "100000\n");
  const CpuQuota q = CpuQuotaFrom(kV1Mounts, "4:cpuset:/\n3:cpu,cpuacct:/job/step\n0::/\n", root.path());
  EXPECT_DOUBLE_EQ(q.cpus, 1.5);
  EXPECT_DOUBLE_EQ(q.period_s, 0.1);
  EXPECT_EQ(q.stat_path, base + "/job/cpu.stat");

  Write(base + "/job/step/cpu.cfs_quota_us", "25000\n");  // a tighter one lower down wins
  EXPECT_DOUBLE_EQ(CpuQuotaFrom(kV1Mounts, "3:cpu,cpuacct:/job/step\n", root.path()).cpus, 0.25);
}

TEST(CpuQuotaTest, V2ReadsCpuMax) {
  TempDir root("cpu-quota-");
  const std::string base = root.path() + "/sys/fs/cgroup";
  Write(base + "/cpu.max", "max 100000\n");
  Write(base + "/pod/cpu.max", "25000 50000\n");
  Write(base + "/pod/app/cpu.max", "max 100000\n");
  const CpuQuota q = CpuQuotaFrom(kV2Mounts, "0::/pod/app\n", root.path());
  EXPECT_DOUBLE_EQ(q.cpus, 0.5);
  EXPECT_DOUBLE_EQ(q.period_s, 0.05);
  EXPECT_EQ(q.stat_path, base + "/pod/cpu.stat");
}

// A container without a cgroup namespace: /proc/self/cgroup names the host's path, the mount shows that
// directory as its top.
TEST(CpuQuotaTest, ContainerMountShowsItsOwnCgroupAsTop) {
  TempDir root("cpu-quota-");
  const std::string mounts = "40 31 0:29 /docker/abc /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n";
  Write(root.path() + "/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "200000\n");
  Write(root.path() + "/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
  EXPECT_DOUBLE_EQ(CpuQuotaFrom(mounts, "2:cpu:/docker/abc\n", root.path()).cpus, 2);
}

TEST(CpuQuotaTest, NoLimitNoMountOrUnreadableFilesMeanNone) {
  TempDir root("cpu-quota-");
  Write(root.path() + "/sys/fs/cgroup/cpu.max", "max 100000\n");
  EXPECT_EQ(CpuQuotaFrom(kV2Mounts, "0::/\n", root.path()).cpus, 0);
  EXPECT_EQ(CpuQuotaFrom("", "0::/\n", root.path()).cpus, 0);
  EXPECT_EQ(CpuQuotaFrom(kV1Mounts, "3:cpu,cpuacct:/gone\n", root.path()).cpus, 0);
  EXPECT_EQ(CpuQuotaFrom(kV1Mounts, "garbage\n", root.path()).stat_path, "");
}

TEST(CpuQuotaTest, ParsesBothVersionsOfCpuStat) {
  auto v1 = ParseCpuStat("nr_periods 40\nnr_throttled 30\nthrottled_time 1500000000\nnr_bursts 0\n");
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->periods, 40);
  EXPECT_EQ(v1->throttled_periods, 30);
  auto v2 =
      ParseCpuStat("usage_usec 9\nuser_usec 5\nsystem_usec 4\nnr_periods 7\nnr_throttled 2\nthrottled_usec 250000\n");
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->throttled_periods, 2);
  EXPECT_FALSE(ParseCpuStat("usage_usec 9\n"));
  EXPECT_FALSE(ReadCpuThrottling(""));
}

TEST(CpuQuotaTest, FormatsAsTheUserWouldSetIt) {
  EXPECT_EQ(FormatCpus(0.5), "0.5 CPU");
  EXPECT_EQ(FormatCpus(1), "1 CPU");
  EXPECT_EQ(FormatCpus(2.5), "2.5 CPUs");
}

// The real thing: a cgroup v1 child with a quota of 0.3 CPU; a forked process joins it, reads its own limit, and
// spins until it has been throttled.
TEST(CpuQuotaTest, RealCgroupV1Child) {
  const std::string parent = "/sys/fs/cgroup/cpu";
  if (!fs::exists(parent + "/cpu.cfs_quota_us")) GTEST_SKIP() << "no cgroup v1 cpu hierarchy at " << parent;
  const std::string dir = parent + "/commbench-quota-test-" + std::to_string(getpid());
  if (!fs::create_directory(dir)) GTEST_SKIP() << "cannot create " << dir << " (needs root)";
  std::ofstream(dir + "/cpu.cfs_period_us") << "100000";
  std::ofstream(dir + "/cpu.cfs_quota_us") << "30000";
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    { std::ofstream(dir + "/cgroup.procs") << getpid(); }
    const CpuQuota q = ReadCpuQuota();
    for (volatile int64_t i = 0; i < 300000000; i = i + 1) {
    }  // about 0.3-1 s of CPU: throttled many times over
    const auto t = ReadCpuThrottling(q.stat_path);
    const std::string out =
        std::to_string(q.cpus) + " " + q.stat_path + " " + std::to_string(t ? t->throttled_periods : -1) + "\n";
    (void)!write(fds[1], out.data(), out.size());
    _exit(0);
  }
  close(fds[1]);
  char buf[512] = {};
  const ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  fs::remove(dir);
  ASSERT_GT(n, 0);
  double cpus = 0;
  char stat[400] = {};
  long long throttled = -1;
  ASSERT_EQ(std::sscanf(buf, "%lf %399s %lld", &cpus, stat, &throttled), 3) << buf;
  EXPECT_DOUBLE_EQ(cpus, 0.3);
  EXPECT_EQ(std::string(stat), dir + "/cpu.stat");
  EXPECT_GT(throttled, 0) << "a process spinning under 0.3 CPU was never throttled";
}

}  // namespace
}  // namespace commbench
