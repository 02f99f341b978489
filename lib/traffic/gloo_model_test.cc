#include "lib/traffic/gloo_model.h"

#include <gtest/gtest.h>

#include "lib/traffic/traffic.h"

namespace commbench {
namespace traffic {
namespace {

RankTraffic Rank(const std::string& algo, Collective op, size_t count, int n, int rank) {
  auto model = ModelOp(Request{"gloo", TrafficModel::kGlooAlgorithms, algo, op, count, n, 4});
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
    int steps = 0;
    while ((1 << steps) < n) ++steps;
    EXPECT_EQ(r.sent_messages, 2u * static_cast<unsigned>(steps)) << n;
    EXPECT_EQ(r.control_messages, 2u * static_cast<unsigned>(steps)) << n;
  }
}

TEST(GlooModel, HalvingDoublingOnThreeRanksIsBinaryBlocks) {
  // Blocks [0,2) and [2]: chunks of ceil(1001/2) = 501. Ranks 0 and 1 halve (501 / 500), rank 2 hands its whole
  // buffer up (501 to rank 0, 500 to rank 1), the block sends the result down (501 from rank 0, 500 from rank 1)
  // and doubles. 1.5·S for the block, S for rank 2; not the textbook 4/3·S.
  auto m =
      ModelOp(Request{"gloo", TrafficModel::kGlooAlgorithms, "halving_doubling", Collective::kAllreduce, 1001, 3, 4});
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->exact);
  EXPECT_EQ(m->ranks[0].sent_bytes, (500u + 501 + 501) * 4);
  EXPECT_EQ(m->ranks[1].sent_bytes, (501u + 500 + 500) * 4);
  EXPECT_EQ(m->ranks[2].sent_bytes, 1001u * 4);
  EXPECT_EQ(m->ranks[2].recv_bytes, 1001u * 4);
  EXPECT_EQ(m->ranks[2].sent_messages, 2u);
  EXPECT_EQ(m->ranks[2].control_messages, 0u);  // across blocks Gloo sends no notifications
  EXPECT_EQ(m->ranks[0].control_messages, 2u);
}

TEST(GlooModel, HalvingDoublingSevenRanksChainsThreeBlocks) {
  // Blocks of 4, 2 and 1: 2^2 chunks of 256. Rank 6 hands 1024 up to ranks 4 and 5 (512 each); they each hand
  // their 512-half up as two 256 pieces into the block of four, and get 512 back.
  auto m =
      ModelOp(Request{"gloo", TrafficModel::kGlooAlgorithms, "halving_doubling", Collective::kAllreduce, 1024, 7, 4});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->ranks[6].sent_bytes, 1024u * 4);
  EXPECT_EQ(m->ranks[6].recv_bytes, 1024u * 4);
  EXPECT_EQ(m->ranks[4].sent_bytes, (512u + 512 + 512 + 512) * 4);  // halve, up, down to 6, double
  EXPECT_EQ(m->ranks[0].sent_bytes, (512u + 256 + 256 + 256 + 512) * 4);
  uint64_t sent = 0, recv = 0;
  for (const RankTraffic& r : m->ranks) sent += r.sent_bytes, recv += r.recv_bytes;
  EXPECT_EQ(sent, recv);
}

TEST(GlooModel, HalvingDoublingReduceScatterDistributes) {
  // 4 ranks, 100 each: halving sends 200 then 100; the holder of chunk k (rank reverse(k)) sends it to rank k
  // unless that is itself (ranks 0 and 3), each piece answered by a notification.
  auto m = ModelOp(
      Request{"gloo", TrafficModel::kGlooAlgorithms, "halving_doubling", Collective::kReduceScatter, 100, 4, 4});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->ranks[0].sent_bytes, (200u + 100) * 4);
  EXPECT_EQ(m->ranks[1].sent_bytes, (200u + 100 + 100) * 4);  // rank 1 holds chunk 2
  EXPECT_EQ(m->ranks[1].recv_bytes, (200u + 100 + 100) * 4);
  EXPECT_EQ(m->ranks[1].control_messages, 2u + 1);  // two halvings, one acknowledgement
  // Three ranks: rank 2 hands its 300 up (150 + 150); rank 0 holds [0,150) and sends rank 1 its 50, rank 1 holds
  // [150,300) and sends rank 2 its 100.
  auto odd = ModelOp(
      Request{"gloo", TrafficModel::kGlooAlgorithms, "halving_doubling", Collective::kReduceScatter, 100, 3, 4});
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->ranks[2].sent_bytes, 300u * 4);
  EXPECT_EQ(odd->ranks[2].recv_bytes, 100u * 4);
  EXPECT_EQ(odd->ranks[0].sent_bytes, (150u + 50) * 4);
  EXPECT_EQ(odd->ranks[1].sent_bytes, (150u + 100) * 4);
}

TEST(GlooModel, AllgatherRingAndReduceScatterRingSlice) {
  EXPECT_EQ(Rank("ring", Collective::kAllgather, 100, 4, 0).sent_bytes, 3u * 400);
  // ring_slice allreduces the whole n-block buffer with the ring above: (n-1)·n·count elements.
  EXPECT_EQ(Rank("ring_slice", Collective::kReduceScatter, 100, 4, 0).sent_bytes, 3u * 4 * 400);
}

TEST(GlooModel, UnknownAlgorithmAndOtherBackends) {
  auto bad = ModelOp(Request{"gloo", TrafficModel::kGlooAlgorithms, "hd", Collective::kAllreduce, 10, 2, 4});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'hd'"), std::string::npos);
  auto nccl = ModelOp(Request{"nccl", TrafficModel::kTextbook, "auto", Collective::kAllreduce, 1024, 4, 4});
  ASSERT_TRUE(nccl.ok());
  EXPECT_FALSE(nccl->exact);
  EXPECT_EQ(nccl->ranks[0].sent_bytes, 6144u);
}

}  // namespace
}  // namespace traffic
}  // namespace commbench
