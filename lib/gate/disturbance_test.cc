// The disturbed-repeat rule on repeats as the result file records them: a repeat beside a process that held a
// rank's CPU, or whose ranks waited for a CPU while one was there, is disturbed and says why; a quiet one, or load on a
// CPU the ranks could not use, is not; a repeat without host evidence (older files) is judged quiet.
#include "lib/gate/disturbance.h"

#include <gtest/gtest.h>

namespace commbench::gate {
namespace {

// A repeat of 100 us per operation over a 0.2 s window on CPUs 0-1, the ranks using 0.2 CPU s; `outside` CPU s
// taken by "make" on `cpu`, and `wait_us` of run-queue wait per iteration.
result::PointResult Repeat(double outside, int cpu, double wait_us) {
  result::PointResult p;
  p.time_us.p50 = 100;
  p.cpu.cores_available = 2;
  p.cpu.runqueue_wait_us_per_iter = wait_us;
  result::HostLoad h;
  h.window_s = 0.2;
  h.ranks_cpu_s = 0.2;
  for (int c = 0; c < 3; ++c) h.per_cpu.push_back({c, 0.1 + (c == cpu ? outside : 0), c == cpu ? outside : 0});
  h.outside_cpu_s = outside;
  h.cpu_busy_s = 0.3 + outside;
  if (outside > 0) h.top.push_back({4242, "make", outside, {cpu}});
  p.host_load = h;
  return p;
}

TEST(DisturbanceTest, AQuietRepeatIsNotDisturbed) {
  const Disturbance d = JudgeRepeat(Repeat(0, 0, 1), "0-1");
  EXPECT_FALSE(d.disturbed) << d.why;
  EXPECT_EQ(d.outside_share, 0);
  EXPECT_NEAR(d.runqueue_share, 0.01, 1e-12);
}

TEST(DisturbanceTest, AProcessOnARanksCpuDisturbsTheRepeatAndIsNamed) {
  // 0.1 CPU s of 2 CPUs x 0.2 s: 25 %.
  const Disturbance d = JudgeRepeat(Repeat(0.1, 1, 1), "0-1");
  EXPECT_TRUE(d.disturbed);
  EXPECT_NEAR(d.outside_share, 0.25, 1e-9);
  EXPECT_NE(d.why.find("25% of the ranks' CPUs"), std::string::npos) << d.why;
  EXPECT_NE(d.why.find("make, pid 4242"), std::string::npos) << d.why;
}

// Short-lived processes no sample could name (the CPUs' busy time less the run's, recorded as unattributed and in
// per_cpu outside_s) disturb the repeat as well, and the reason says what they were.
TEST(DisturbanceTest, ShortLivedProcessesDisturbTheRepeatAndAreSaidToBe) {
  result::PointResult p = Repeat(0.1, 1, 1);
  p.host_load->top.clear();
  p.host_load->unattributed_cpu_s = 0.1;
  p.host_load->per_cpu[1].unattributed_s = 0.1;
  const Disturbance d = JudgeRepeat(p, "0-1");
  EXPECT_TRUE(d.disturbed);
  EXPECT_NEAR(d.outside_share, 0.25, 1e-9);
  EXPECT_NE(d.why.find("mostly short-lived processes"), std::string::npos) << d.why;
}

TEST(DisturbanceTest, LoadOnACpuTheRanksCannotUseDoesNotCount) {
  EXPECT_FALSE(JudgeRepeat(Repeat(0.1, 2, 1), "0-1").disturbed);
  result::PointResult pinned = Repeat(0.1, 1, 1);
  pinned.point.cpus = "0";  // the point's own CPUs win over the run's affinity
  EXPECT_FALSE(JudgeRepeat(pinned, "0-1").disturbed);
}

// Run-queue wait beside an outside process (6 % of the ranks' CPUs: below the outside rule's 10 %) disturbs.
TEST(DisturbanceTest, RunQueueWaitBesideAnOutsideProcessDisturbsTheRepeat) {
  const Disturbance d = JudgeRepeat(Repeat(0.024, 0, 30), "0-1");
  EXPECT_TRUE(d.disturbed);
  EXPECT_NEAR(d.outside_share, 0.06, 1e-9);
  EXPECT_NE(d.why.find("waited for a CPU 30%"), std::string::npos) << d.why;
}

// The same wait with nobody outside is the ranks' own threads queueing behind each other (a pinned Gloo rank's
// I/O thread, ranks sharing CPUs): the run's own cost, on both sides of a comparison, not a disturbance.
TEST(DisturbanceTest, RunQueueWaitWithoutAnOutsideProcessIsTheRanksOwn) {
  for (double outside : {0.0, 0.012}) {  // 0 % and 3 % of the ranks' CPUs
    const Disturbance d = JudgeRepeat(Repeat(outside, 0, 90), "0-1");
    EXPECT_FALSE(d.disturbed) << outside << ": " << d.why;
    EXPECT_NEAR(d.runqueue_share, 0.9, 1e-12);
  }
}

// `ranks` ranks on `affinity` each, rank 1 having moved `moved` times between CPUs, the others not.
result::PointResult WithMigrations(const std::string& affinity, int64_t moved) {
  result::PointResult p = Repeat(0, 0, 1);
  for (int r = 0; r < 2; ++r) {
    result::RankTime t;
    t.rank = r;
    t.affinity = affinity;
    t.migrations = r == 1 ? moved : 0;
    p.per_rank.push_back(t);
  }
  p.cpu.migrations = moved;
  return p;
}

// An unpinned rank's scheduler moves it freely: recorded, never a disturbance however often.
TEST(DisturbanceTest, AnUnpinnedRanksMigrationsAreRecordedButDoNotDisturb) {
  const Disturbance d = JudgeRepeat(WithMigrations("0-1", 5000), "0-1");
  EXPECT_FALSE(d.disturbed) << d.why;
  EXPECT_EQ(d.migrations, 5000);
  EXPECT_EQ(JudgeRepeat(Repeat(0, 0, 1), "0-1").migrations, -1);  // not recorded
}

// A rank allowed one CPU cannot move unless its affinity (or its CPU) changed: it ran elsewhere than placed.
TEST(DisturbanceTest, APinnedRankThatMovedDisturbsTheRepeat) {
  EXPECT_FALSE(JudgeRepeat(WithMigrations("1", 0), "0-1").disturbed);  // pinned and stayed
  const Disturbance d = JudgeRepeat(WithMigrations("1", 2), "0-1");
  EXPECT_TRUE(d.disturbed);
  EXPECT_EQ(d.migrations, 2);
  EXPECT_NE(d.why.find("rank 1, pinned to CPU 1, moved between CPUs 2 times"), std::string::npos) << d.why;
  // Placed by --pin, its affinity widened under it: still pinned.
  result::PointResult widened = WithMigrations("0-1", 3);
  widened.point.pin = Pin::kCompact;
  const Disturbance w = JudgeRepeat(widened, "0-1");
  EXPECT_TRUE(w.disturbed);
  EXPECT_NE(w.why.find("rank 1, pinned (--pin compact; allowed CPUs 0-1 after its loop), moved between CPUs 3 times"),
            std::string::npos)
      << w.why;
  // Beside another reason, both are said.
  result::PointResult both = WithMigrations("1", 1);
  both.cpu.runqueue_wait_us_per_iter = 30;
  both.host_load = Repeat(0.024, 0, 30).host_load;  // with an outside process there
  const Disturbance two = JudgeRepeat(both, "0-1");
  EXPECT_NE(two.why.find("operation's time; rank 1, pinned to CPU 1, moved between CPUs 1 time ("), std::string::npos)
      << two.why;
}

TEST(DisturbanceTest, NoEvidenceIsQuiet) {
  result::PointResult old;
  old.time_us.p50 = 100;
  old.cpu.runqueue_wait_us_per_iter = -1;  // older files
  EXPECT_FALSE(JudgeRepeat(old, "0-1").disturbed);
}

}  // namespace
}  // namespace commbench::gate
