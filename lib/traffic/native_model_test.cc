#include "lib/traffic/native_model.h"

#include <gtest/gtest.h>

#include "lib/backend/native/schedule.h"
#include "lib/traffic/traffic.h"

namespace commbench {
namespace traffic {
namespace {

// Every pull of a peer's region is that many elements from the peer to the puller.
std::vector<RankTraffic> WalkSchedule(const native::Schedule& s, size_t esize) {
  std::vector<Transfer> t;
  for (int r = 0; r < s.problem.n; ++r)
    for (const auto& step : s.steps[static_cast<size_t>(r)])
      for (const auto& pull : step.pulls)
        for (const auto& src : pull.srcs)
          if (src.rank != r) t.push_back(Transfer{src.rank, r, pull.count});
  return PerRank(t, s.problem.n, esize);
}

struct Case {
  std::string algo;
  Collective op;
};

TEST(NativeModel, EveryRankMatchesTheScheduleForEveryAlgorithm) {
  const std::vector<Case> cases = {{"direct", Collective::kAllreduce},     {"direct", Collective::kAllgather},
                                   {"direct", Collective::kReduceScatter}, {"twoshot", Collective::kAllreduce},
                                   {"ring", Collective::kAllreduce},       {"ring", Collective::kAllgather},
                                   {"ring", Collective::kReduceScatter},   {"hd", Collective::kAllreduce},
                                   {"hd", Collective::kAllgather},         {"hd", Collective::kReduceScatter}};
  for (const Case& c : cases) {
    for (int n = 1; n <= 9; ++n) {
      for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{100}, size_t{1000}, size_t{4099}}) {
        for (bool in_place : {false, true}) {
          auto schedule = native::BuildSchedule(c.algo, native::Problem{c.op, count, n, in_place});
          ASSERT_TRUE(schedule.ok()) << schedule.status().message();
          auto transfers = NativeTransfers(NativeProblem{c.algo, c.op, count, n});
          ASSERT_TRUE(transfers.ok()) << transfers.status().message();
          auto want = WalkSchedule(*schedule, 4);
          auto got = PerRank(*transfers, n, 4);
          for (int r = 0; r < n; ++r) {
            SCOPED_TRACE(c.algo + " " + std::string(Name(c.op)) + " n=" + std::to_string(n) + " count=" +
                         std::to_string(count) + (in_place ? " in place" : "") + " rank " + std::to_string(r));
            EXPECT_EQ(got[r].sent_bytes, want[r].sent_bytes);
            EXPECT_EQ(got[r].recv_bytes, want[r].recv_bytes);
            EXPECT_EQ(got[r].sent_messages, want[r].sent_messages);
          }
        }
      }
    }
  }
}

TEST(NativeModel, RingMeetsTheTextbookOnEvenBlocks) {
  // 8 ranks, 1024 floats: blocks of 128, so every rank sends exactly 2(n-1)/n·S and (n-1)/n·S.
  auto model = ModelOp(Request{"native", TrafficModel::kNativeSchedules, "ring", Collective::kAllreduce, 1024, 8, 4});
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->ranks[3].sent_bytes, TextbookBytesPerRank(Collective::kAllreduce, 1024, 8, 4));
  EXPECT_EQ(model->ranks[3].sent_bytes, 2u * 7 * 4096 / 8);
  auto ag = ModelOp(Request{"native", TrafficModel::kNativeSchedules, "ring", Collective::kAllgather, 1024, 8, 4});
  ASSERT_TRUE(ag.ok());
  EXPECT_EQ(ag->ranks[0].sent_bytes, 7u * 4096);  // (n-1)/n of S = 8 × 4 KiB
  EXPECT_EQ(ag->ranks[0].sent_bytes, TextbookBytesPerRank(Collective::kAllgather, 1024, 8, 4));
}

TEST(NativeModel, DirectSendsTheWholeBufferToEveryPeer) {
  auto model = ModelOp(Request{"native", TrafficModel::kNativeSchedules, "direct", Collective::kAllreduce, 1000, 4, 2});
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->ranks[0].sent_bytes, 3u * 2000);
}

TEST(NativeModel, UnknownAlgorithmNamesIt) {
  auto model = ModelOp(Request{"native", TrafficModel::kNativeSchedules, "twoshot", Collective::kAllgather, 10, 2, 4});
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("'twoshot'"), std::string::npos);
}

}  // namespace
}  // namespace traffic
}  // namespace commbench
