#include "lib/result/rank_traffic.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace commbench::result {
namespace {

TEST(RankTraffic, RoundTripsWithDerivedFigures) {
  RankTraffic t;
  t.source = "tcp_info";
  t.ops = 100;
  t.sent_bytes = 700000;
  t.recv_bytes = 700100;
  t.model_sent_bytes_per_op = 7000;
  t.model_recv_bytes_per_op = 7000;
  t.model_exact = true;
  nlohmann::json j = RankTrafficToJson(t);
  EXPECT_DOUBLE_EQ(j["sent_bytes_per_op"].get<double>(), 7000);
  EXPECT_DOUBLE_EQ(j["recv_ratio"].get<double>(), 7001.0 / 7000);
  auto back = ReadRankTraffic(j, "traffic");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->source, "tcp_info");
  EXPECT_EQ(back->ops, 100);
  EXPECT_DOUBLE_EQ(back->SentRatio(), 1.0);
  EXPECT_TRUE(back->model_exact);
}

TEST(RankTraffic, NotMeasuredIsNullAndReadsBackAsMissing) {
  RankTraffic t;
  t.source = "shm_copies";
  t.ops = 10;
  t.recv_bytes = 40;  // shm counts what this rank copied from its peers only
  nlohmann::json j = RankTrafficToJson(t);
  EXPECT_TRUE(j["sent_bytes"].is_null());
  EXPECT_TRUE(j["sent_ratio"].is_null());
  auto back = ReadRankTraffic(j, "traffic");
  ASSERT_TRUE(back.ok());
  EXPECT_LT(back->sent_bytes, 0);
  EXPECT_DOUBLE_EQ(back->RecvPerOp(), 4);
  EXPECT_FALSE(ReadRankTraffic(nlohmann::json{{"ops", 1}}, "traffic").ok());  // source is required
}

}  // namespace
}  // namespace commbench::result
