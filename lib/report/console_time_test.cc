#include "lib/report/console_time.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

using result::Phase;

TEST(ConsoleTimeTest, ShareAndLargestPhasesFirst) {
  result::ResultTrailer t;
  result::WallTime w;
  w.wall_s = 100;
  w.phases[Phase::kTimed] = 82;
  w.phases[Phase::kBetweenOps] = 3.5;
  w.phases[Phase::kSpawn] = 9.4;
  w.phases[Phase::kWarmup] = 5;
  w.phases[Phase::kStats] = 0.04;  // under 0.1 s: left out
  t.wall = w;
  EXPECT_EQ(FormatWallTime(t),
            "# Time: 100.0 s wall, 82 % in timed loops (82.0 s); spawn 9.4 s, warm-up 5.0 s, between ops 3.5 s\n");
}

TEST(ConsoleTimeTest, NothingForFilesWithoutIt) { EXPECT_EQ(FormatWallTime(result::ResultTrailer{}), ""); }

}  // namespace
}  // namespace commbench
