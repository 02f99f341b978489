#include "lib/traffic/gloo_model.h"

#include <gtest/gtest.h>

#include "lib/traffic/traffic.h"

namespace commbench {
namespace traffic {
namespace {

RankTraffic Rank(const std::string& algo, Collective op, size_t count, int n, int rank) {
  auto model = ModelOp(Request{"gloo", algo, op, count, n, 4});
  EXPECT_TRUE(model.ok()) << model.status().message();
  return model.ok() ? model->ranks[static_cast<size_t>(rank)] : RankTraffic{};
}

TEST(GlooModel, RingAllreduceSendsTheWholeBufferEachRound) {
  // gloo::AllreduceRing passes the full buffer n-1 times: (n-1)·S, not 2(n-1)/n·S.
  RankTraffic r = Rank("ring", Collective::kAllreduce, 1000, 4, 1);
  EXPECT_EQ(r.sent_bytes, 3u * 4000);
  EXPECT_EQ(r.recv_bytes, 3u * 4000);
  EXPECT_EQ(r.sent_messages, 3u);
  EXPECT_EQ(r.control_messages, 3u);
}

TEST(GlooModel, RingChunkedIsTheTextbookOnEvenChunks) {
  // 8 chunks of 512 floats on 4 ranks: 4n-4 chunks sent = 2(n-1)/n·S.
  RankTraffic r = Rank("ring_chunked", Collective::kAllreduce, 4096, 4, 2);
  EXPECT_EQ(r.sent_bytes, TextbookBytesPerRank(Collective::kAllreduce, 4096, 4, 4));
  EXPECT_EQ(r.sent_messages, 12u);
  // Below 256 elements per chunk, empty chunks still send one element each.
  RankTraffic small = Rank("ring_chunked", Collective::kAllreduce, 100, 2, 0);
  EXPECT_EQ(small.sent_bytes, (100u + 1 + 1 + 1) * 4);
}

TEST(GlooModel, HalvingDoublingOnPowersOfTwoIsTheTextbook) {
  for (int n : {2, 4, 8}) {
    RankTraffic r = Rank("halving_doubling", Collective::kAllreduce, 8192, n, n - 1);
    EXPECT_EQ(r.sent_bytes, TextbookBytesPerRank(Collective::kAllreduce, 8192, n, 4)) << n;
    EXPECT_EQ(r.recv_bytes, r.sent_bytes);
  }
  auto odd = ModelOp(Request{"gloo", "halving_doubling", Collective::kAllreduce, 8192, 6, 4});
  ASSERT_TRUE(odd.ok());
  EXPECT_FALSE(odd->exact);
}

TEST(GlooModel, AllgatherRingAndReduceScatterRingSlice) {
  EXPECT_EQ(Rank("ring", Collective::kAllgather, 100, 4, 0).sent_bytes, 3u * 400);
  // ring_slice allreduces the whole n-block buffer with the ring above: (n-1)·n·count elements.
  EXPECT_EQ(Rank("ring_slice", Collective::kReduceScatter, 100, 4, 0).sent_bytes, 3u * 4 * 400);
}

TEST(GlooModel, UnknownAlgorithmAndOtherBackends) {
  auto bad = ModelOp(Request{"gloo", "hd", Collective::kAllreduce, 10, 2, 4});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'hd'"), std::string::npos);
  auto nccl = ModelOp(Request{"nccl", "auto", Collective::kAllreduce, 1024, 4, 4});
  ASSERT_TRUE(nccl.ok());
  EXPECT_FALSE(nccl->exact);
  EXPECT_EQ(nccl->ranks[0].sent_bytes, 6144u);
}

}  // namespace
}  // namespace traffic
}  // namespace commbench
