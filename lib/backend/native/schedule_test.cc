#include "lib/backend/native/schedule.h"

#include <gtest/gtest.h>

#include <cstring>

#include "lib/backend/native/algorithm_choice.h"
#include "lib/backend/native/reduce.h"
#include "lib/measure/pattern.h"

namespace commbench {
namespace native {
namespace {

// Executes a schedule step by step, all ranks of a step before the next (what the waits guarantee), on plain
// vectors, and checks every rank's output against the data pattern. `runs` > 1 runs the op again on the buffers
// as the previous run left them, the input not set again (what a loop does where WritesInput is false).
Status Simulate(const Schedule& s, const OpRequest& request, int runs = 1) {
  const int n = s.problem.n;
  const size_t es = SizeOf(request.dtype);
  std::vector<std::array<std::vector<char>, kNumBufs>> bufs(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    for (int b = 0; b < kNumBufs; ++b) bufs[r][b].assign(s.sizes.count[b] * es, static_cast<char>(0x5a));
    std::vector<char> in;
    FillInput(request, r, n, 3, &in);
    Loc at = InputLoc(s.problem, r);
    if (!in.empty()) std::memcpy(bufs[r][static_cast<int>(at.buf)].data() + at.offset * es, in.data(), in.size());
  }
  auto addr = [&](const Loc& l) { return bufs[l.rank][static_cast<int>(l.buf)].data() + l.offset * es; };
  for (int run = 0; run < runs; ++run) {
    for (size_t t = 0; t < s.num_steps(); ++t) {
      for (int r = 0; r < n; ++r) {
        for (const Pull& pull : s.steps[r][t].pulls) {
          char* dst = addr(Loc{r, pull.dst_buf, pull.dst_offset});
          std::vector<const void*> srcs;
          for (const Loc& l : pull.srcs) srcs.push_back(addr(l));
          ReduceMany(request.dtype, request.reduce, dst, srcs.data(), static_cast<int>(srcs.size()), pull.count);
        }
      }
    }
  }
  for (int r = 0; r < n; ++r) {
    std::vector<char> out(RecvCount(request, n) * es);
    Loc at = OutputLoc(s.problem, r);
    if (!out.empty()) std::memcpy(out.data(), addr(at), out.size());
    Status st = CheckOutput(request, r, n, 3, out);
    if (!st.ok()) return Status(st.code(), "rank " + std::to_string(r) + ": " + st.message());
  }
  return OkStatus();
}

TEST(ScheduleTest, EveryAlgorithmIsValidAndCorrectForManyShapes) {
  int checked = 0;
  for (const auto& algo : AlgorithmTable()) {
    for (Collective op : {algo.op}) {
      for (int n = 1; n <= 13; ++n) {
        for (bool in_place : {false, true}) {
          for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{33}, size_t{1023}}) {
            OpRequest request;
            request.op = op;
            request.count = count;
            request.in_place = in_place;
            request.dtype = DataType::kF32;
            Problem problem{op, count, n, in_place};
            auto schedule = BuildSchedule(algo.name, problem);
            std::string what = algo.name + "/" + std::string(Name(op)) + "/n=" + std::to_string(n) +
                               (in_place ? "/in-place" : "/out-of-place") + "/count=" + std::to_string(count);
            ASSERT_TRUE(schedule.ok()) << what << ": " << schedule.status().message();
            Status valid = Validate(*schedule);
            EXPECT_TRUE(valid.ok()) << what << ": " << valid.message();
            Status sim = Simulate(*schedule, request);
            EXPECT_TRUE(sim.ok()) << what << ": " << sim.message();
            // Where the schedule says it keeps its input, a second op on the buffers as left is still correct.
            EXPECT_EQ(WritesInput(*schedule), in_place) << what;
            if (!WritesInput(*schedule)) {
              Status again = Simulate(*schedule, request, 2);
              EXPECT_TRUE(again.ok()) << what << ", run twice on one input: " << again.message();
            }
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(ScheduleTest, WritesInputSeesAPullIntoTheInput) {
  Problem problem{Collective::kAllreduce, 8, 2, false};
  auto schedule = BuildSchedule("ring", problem);
  ASSERT_TRUE(schedule.ok());
  EXPECT_FALSE(WritesInput(*schedule));
  schedule->steps[1].back().pulls.push_back(Pull{Buf::kIn, 0, 1, {Loc{0, Buf::kIn, 0}}});
  EXPECT_TRUE(WritesInput(*schedule));
}

TEST(ScheduleTest, PipelinedTwoShotIsValidAndCorrect) {
  for (int n : {1, 2, 3, 4, 8}) {
    for (bool in_place : {false, true}) {
      for (size_t count : {size_t{0}, size_t{5}, size_t{100}, size_t{4099}}) {
        for (int chunks : {2, 3, 7, 64}) {
          OpRequest request;
          request.count = count;
          request.in_place = in_place;
          Problem problem{Collective::kAllreduce, count, n, in_place};
          problem.chunks = chunks;
          auto schedule = BuildSchedule("twoshot", problem);
          std::string what = "n=" + std::to_string(n) + (in_place ? "/in-place" : "") +
                             "/count=" + std::to_string(count) + "/chunks=" + std::to_string(chunks);
          ASSERT_TRUE(schedule.ok()) << what;
          Status valid = Validate(*schedule);
          EXPECT_TRUE(valid.ok()) << what << ": " << valid.message();
          Status sim = Simulate(*schedule, request);
          EXPECT_TRUE(sim.ok()) << what << ": " << sim.message();
        }
      }
    }
  }
}

TEST(ScheduleTest, PipelinedTwoShotOverlapsReduceAndCopy) {
  Problem problem{Collective::kAllreduce, 1 << 12, 2, false};
  problem.chunks = 4;
  auto schedule = BuildSchedule("twoshot", problem);
  ASSERT_TRUE(schedule.ok());
  ASSERT_EQ(schedule->num_steps(), 5u);
  // Middle steps: reduce this chunk's block and copy the peer's block of the previous chunk.
  for (size_t t = 1; t < 4; ++t) EXPECT_EQ(schedule->steps[0][t].pulls.size(), 2u) << "step " << t;
  // Each waits only for the peer's previous step, not for the whole reduce-scatter.
  WaitPlan plan = MakeWaitPlan(*schedule, 0);
  for (size_t t = 1; t < 5; ++t) {
    ASSERT_EQ(plan.before_step[t].size(), 1u) << "step " << t;
    EXPECT_EQ(plan.before_step[t][0].steps_done, t) << "step " << t;
  }
}

TEST(ScheduleTest, StreamedPullsGrowWithTheWorkingSet) {
  // twoshot allreduce of `bytes` a rank (f32) on 2 ranks: in and out buffers, 2 x 2 x bytes of working set.
  auto streamed = [](size_t bytes) {
    Problem p{Collective::kAllreduce, bytes / 4, 2, false};
    auto s = BuildSchedule("twoshot", p);
    EXPECT_TRUE(s.ok());
    return StreamedPulls(*s, 0, 4);
  };
  using Pulls = std::vector<std::vector<bool>>;
  // 16 MiB of working set: fits the caches, nothing streams.
  EXPECT_EQ(streamed(4 << 20), (Pulls{{false}, {false}}));
  // 32 MiB: the copies of the peers' reduced blocks (nobody reads them again) stream, the reduced block does not.
  EXPECT_EQ(streamed(8 << 20), (Pulls{{false}, {true}}));
  // 64 MiB: the reduced block too, which the peer reads in the next step.
  EXPECT_EQ(streamed(16 << 20), (Pulls{{true}, {true}}));
  // The working set counts every rank: 4 ranks at 8 MiB is 64 MiB, and 3 peers read each reduced block.
  Problem four{Collective::kAllreduce, (8 << 20) / 4, 4, false};
  auto s = BuildSchedule("twoshot", four);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(StreamedPulls(*s, 3, 4), (Pulls{{true}, std::vector<bool>(3, true)}));
  // At 8 ranks 7 peers read it: left to the cache, whatever the working set.
  Problem eight{Collective::kAllreduce, (64 << 20) / 4, 8, false};
  s = BuildSchedule("twoshot", eight);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(StreamedPulls(*s, 5, 4), (Pulls{{false}, std::vector<bool>(7, true)}));
  // f16 halves the bytes of the same count.
  Problem half{Collective::kAllreduce, (16 << 20) / 4, 2, false};
  s = BuildSchedule("twoshot", half);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(StreamedPulls(*s, 1, 2), (Pulls{{false}, {true}}));
}

TEST(ScheduleTest, FinalPullsAreTheLastWritesNobodyReads) {
  // twoshot: the reduced block is read by the peers in the next step; the copied blocks by nobody.
  Problem twoshot{Collective::kAllreduce, 1024, 4, false};
  auto s = BuildSchedule("twoshot", twoshot);
  ASSERT_TRUE(s.ok());
  auto final_pulls = FinalPulls(*s, 1);
  ASSERT_EQ(final_pulls.size(), 2u);
  EXPECT_EQ(final_pulls[0], std::vector<bool>{false});
  EXPECT_EQ(final_pulls[1], std::vector<bool>(3, true));
  // ring: each partial is read by the right neighbour (or accumulated by the rank) in the next step; only the
  // allgather's last step writes what nobody reads again.
  Problem ring{Collective::kAllreduce, 1024, 3, false};
  s = BuildSchedule("ring", ring);
  ASSERT_TRUE(s.ok());
  final_pulls = FinalPulls(*s, 0);
  ASSERT_EQ(final_pulls.size(), 4u);
  EXPECT_EQ(final_pulls[0], std::vector<bool>{false});
  EXPECT_EQ(final_pulls[3], std::vector<bool>{true});
  // direct reduce-scatter: one step, its output final.
  Problem rs{Collective::kReduceScatter, 256, 4, false};
  s = BuildSchedule("direct", rs);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(FinalPulls(*s, 2), std::vector<std::vector<bool>>{{true}});
}

TEST(ScheduleTest, RingWaitsOnlyForItsNeighbours) {
  Problem problem{Collective::kAllreduce, 1000, 6, false};
  auto schedule = BuildSchedule("ring", problem);
  ASSERT_TRUE(schedule.ok());
  WaitPlan plan = MakeWaitPlan(*schedule, 2);
  for (const auto& waits : plan.before_step) {
    for (const PeerWait& w : waits) EXPECT_TRUE(w.rank == 1 || w.rank == 3) << "waits on rank " << w.rank;
  }
  EXPECT_EQ(plan.readers, std::vector<int>{3});
}

TEST(ScheduleTest, HalvingDoublingTakesLogSteps) {
  Problem problem{Collective::kAllreduce, 1 << 16, 8, false};
  auto schedule = BuildSchedule("hd", problem);
  ASSERT_TRUE(schedule.ok());
  size_t busy = 0;
  for (const Step& step : schedule->steps[0]) busy += step.pulls.empty() ? 0 : 1;
  EXPECT_EQ(busy, 6u);  // 3 halving + 3 doubling
}

TEST(ScheduleTest, UnknownOrUnsupportedAlgorithmIsInvalidArgument) {
  Problem problem{Collective::kAllgather, 10, 4, false};
  auto s = BuildSchedule("twoshot", problem);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("accepted"), std::string::npos);
  EXPECT_FALSE(BuildSchedule("nope", problem).ok());
}

TEST(ScheduleTest, AutoPicksBySize) {
  OpRequest small, large;
  small.count = 16;
  large.count = 1 << 20;
  EXPECT_EQ(ChooseAlgorithm(Transport::kShm, small, 4), "direct");
  EXPECT_EQ(ChooseAlgorithm(Transport::kShm, large, 4), "twoshot");
  EXPECT_EQ(ChooseAlgorithm(Transport::kTcp, large, 4), "ring");
}

}  // namespace
}  // namespace native
}  // namespace commbench
