#include "lib/measure/traffic_record.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

BackendCapabilities Counting(bool counts_peer_copies) {
  BackendCapabilities caps;
  caps.counts_peer_copies = counts_peer_copies;
  return caps;
}

RankResult Copied(uint64_t bytes) {
  RankResult r;
  r.peer_bytes_copied = bytes;
  return r;
}

TEST(MeasuredTraffic, NativeSharedMemoryCountsItsCopies) {
  auto t = MeasuredTraffic(Copied(4096), 4, Counting(true), Transport::kSharedMemory, 1);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->source, "shm_copies");
  EXPECT_EQ(t->recv_bytes, 4096);
  EXPECT_LT(t->sent_bytes, 0);
}

// Open MPI on one host reports shared memory, but nothing counts its copies: model only, not "0 bytes received".
TEST(MeasuredTraffic, OtherBackendsOverSharedMemoryAreModelOnly) {
  EXPECT_FALSE(MeasuredTraffic(Copied(0), 4, Counting(false), Transport::kSharedMemory, 1).has_value());
  EXPECT_FALSE(MeasuredTraffic(Copied(0), 4, Counting(false), Transport::kSharedMemory, 1).has_value());
}

TEST(MeasuredTraffic, TcpTakesTheProcessShare) {
  RankResult r;
  r.tcp.sent = 1000;
  r.tcp.received = 600;
  auto t = MeasuredTraffic(r, 10, Counting(false), Transport::kTcp, 2);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->source, "tcp_info");
  EXPECT_EQ(t->sent_bytes, 500);
  EXPECT_EQ(t->recv_bytes, 300);
}

}  // namespace
}  // namespace commbench
