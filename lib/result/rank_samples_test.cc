#include "lib/result/rank_samples.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace commbench::result {
namespace {

TEST(RankSamplesTest, RoundTripsThroughOneLine) {
  RankSamples r;
  r.point_index = 3;
  r.point_id = "gloo/allreduce/ring/f32/sum/g2/k2/400B/in/sync=none";
  r.rank = 3;
  r.group = 1;
  r.group_rank = 1;
  r.pid = 4242;
  r.host = "node7";
  r.address = "10.77.0.3";
  r.transport = Transport::kTcp;
  r.correct = false;
  r.error = "last timed iteration: 2 of 100 elements wrong";
  r.algo = "ring";
  r.warmup = 5;
  r.samples_us = {12.5, 13.25, 11.0};
  r.start_ns = 1000;
  r.end_ns = 5000;
  r.cpu_user_s = 0.5;
  r.vol_ctx = 7.5;
  r.affinity = "0-1";
  r.setup_s = 0.02;
  r.checked_iters = 17;
  r.process_rank = 9;  // another launch order put process 9 at launch rank 3
  const std::string line = RankSamplesToJsonLine(r);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto back = ParseRankSamplesLine(line);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->point_id, r.point_id);
  EXPECT_EQ(back->rank, 3);
  EXPECT_EQ(back->host, "node7");
  EXPECT_EQ(back->address, "10.77.0.3");
  EXPECT_EQ(back->transport, Transport::kTcp);
  EXPECT_NE(line.find("\"transport\":\"tcp\""), std::string::npos) << line;
  EXPECT_FALSE(back->correct);
  EXPECT_EQ(back->error, r.error);
  EXPECT_EQ(back->samples_us, r.samples_us);
  EXPECT_EQ(back->end_ns, 5000);
  EXPECT_DOUBLE_EQ(back->vol_ctx, 7.5);
  EXPECT_EQ(back->checked_iters, 17);
  EXPECT_EQ(back->process_rank, 9);
  EXPECT_EQ(RankSamplesToJsonLine(*back), line);
}

// A backend that does not say which transport it used (and a line written before ranks reported it) has no
// "transport": such a line reads back as kUnknown and writes back byte for byte.
TEST(RankSamplesTest, TransportIsWrittenOnlyWhenReported) {
  RankSamples r;
  r.host = "node7";
  const std::string line = RankSamplesToJsonLine(r);
  EXPECT_EQ(line.find("transport"), std::string::npos) << line;
  auto back = ParseRankSamplesLine(line);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->transport, Transport::kUnknown);
  EXPECT_EQ(RankSamplesToJsonLine(*back), line);
  nlohmann::json j = nlohmann::json::parse(line);
  j["transport"] = "infiniband";
  auto unknown = ReadRankSamples(j);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("rank line.transport: unknown value 'infiniband'"), std::string::npos)
      << unknown.status().message();
}

// Communicator memory (issue 52): written where measured, read back as -1 ("not recorded") from older lines.
TEST(RankSamplesTest, CommunicatorMemoryIsWrittenOnlyWhereMeasured) {
  RankSamples r;
  r.comm_rss_bytes = 123456;
  const std::string line = RankSamplesToJsonLine(r);
  EXPECT_EQ(line.find("comm_device_bytes"), std::string::npos) << line;
  auto back = ParseRankSamplesLine(line);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->comm_rss_bytes, 123456);
  EXPECT_EQ(back->comm_device_bytes, -1);
  EXPECT_EQ(RankSamplesToJsonLine(*back), line);
  auto old = ParseRankSamplesLine(RankSamplesToJsonLine(RankSamples{}));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->comm_rss_bytes, -1);
  nlohmann::json j = nlohmann::json::parse(line);
  j["comm_rss_bytes"] = -5;
  EXPECT_FALSE(ReadRankSamples(j).ok());
}

// The run-queue wait is written where the kernel gave it, and a line without it reads back as "not known".
TEST(RankSamplesTest, RunQueueWaitIsWrittenOnlyWhereKnown) {
  RankSamples r;
  const std::string unknown = RankSamplesToJsonLine(r);
  EXPECT_EQ(unknown.find("runqueue_wait_s"), std::string::npos) << unknown;
  auto back = ParseRankSamplesLine(unknown);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->runqueue_wait_s, -1);
  r.runqueue_wait_s = 0.0125;
  auto known = ParseRankSamplesLine(RankSamplesToJsonLine(r));
  ASSERT_TRUE(known.ok()) << known.status().message();
  EXPECT_DOUBLE_EQ(known->runqueue_wait_s, 0.0125);
  nlohmann::json j = nlohmann::json::parse(RankSamplesToJsonLine(r));
  j["runqueue_wait_s"] = -3;
  EXPECT_FALSE(ReadRankSamples(j).ok());
}

// Migrations likewise: written where the kernel gave them, absent (older lines, no se.nr_migrations) read as -1.
TEST(RankSamplesTest, MigrationsAreWrittenOnlyWhereKnown) {
  RankSamples r;
  const std::string unknown = RankSamplesToJsonLine(r);
  EXPECT_EQ(unknown.find("migrations"), std::string::npos) << unknown;
  auto back = ParseRankSamplesLine(unknown);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->migrations, -1);
  r.migrations = 0;  // known and none: written
  auto none = ParseRankSamplesLine(RankSamplesToJsonLine(r));
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->migrations, 0);
  r.migrations = 12;
  auto known = ParseRankSamplesLine(RankSamplesToJsonLine(r));
  ASSERT_TRUE(known.ok()) << known.status().message();
  EXPECT_EQ(known->migrations, 12);
  EXPECT_EQ(RankSamplesToJsonLine(*known), RankSamplesToJsonLine(r));
  nlohmann::json j = nlohmann::json::parse(RankSamplesToJsonLine(r));
  j["migrations"] = -3;
  EXPECT_FALSE(ReadRankSamples(j).ok());
  j["migrations"] = 1.5;
  EXPECT_FALSE(ReadRankSamples(j).ok());
}

// The cgroup's CPU quota and throttled share likewise: written where a limit is set, absent (no limit, older
// lines) read as none.
TEST(RankSamplesTest, CpuQuotaIsWrittenOnlyWhereSet) {
  RankSamples r;
  const std::string none = RankSamplesToJsonLine(r);
  EXPECT_EQ(none.find("cpu_quota"), std::string::npos) << none;
  EXPECT_EQ(none.find("throttled_share"), std::string::npos) << none;
  auto back = ParseRankSamplesLine(none);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->cpu_quota, 0);
  EXPECT_EQ(back->throttled_share, -1);
  r.cpu_quota = 0.5;
  r.throttled_share = 0.75;
  auto set = ParseRankSamplesLine(RankSamplesToJsonLine(r));
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->cpu_quota, 0.5);
  EXPECT_EQ(set->throttled_share, 0.75);
  nlohmann::json j = nlohmann::json::parse(RankSamplesToJsonLine(r));
  j["throttled_share"] = -0.5;
  EXPECT_FALSE(ReadRankSamples(j).ok());
}

// Samples travel as whole nanoseconds (a clock's tick is all they hold); a line written before, in microseconds,
// still reads.
TEST(RankSamplesTest, SamplesTravelAsWholeNanosecondsAndOlderLinesInMicrosecondsStillRead) {
  RankSamples r;
  r.samples_us = {0.0004, 1.2344, 1.2346, 250000.125};
  const std::string line = RankSamplesToJsonLine(r);
  EXPECT_NE(line.find("\"samples_ns\":[0,1234,1235,250000125]}"), std::string::npos) << line;
  auto back = ParseRankSamplesLine(line);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->samples_us, (std::vector<double>{0, 1.234, 1.235, 250000.125}));
  nlohmann::json older = nlohmann::json::parse(line);
  older.erase("samples_ns");
  older["samples_us"] = {12.5, 0.75};
  auto old_back = ReadRankSamples(older);
  ASSERT_TRUE(old_back.ok()) << old_back.status().message();
  EXPECT_EQ(old_back->samples_us, (std::vector<double>{12.5, 0.75}));
}

// Arrivals (issue 52) travel as whole nanoseconds after the samples, only where recorded; a line without them
// (written before) reads as none recorded.
TEST(RankSamplesTest, ArrivalsTravelAfterTheSamplesOnlyWhereRecorded) {
  RankSamples r;
  r.samples_us = {1.5, 2.5};
  EXPECT_EQ(RankSamplesToJsonLine(r).find("entry_ns"), std::string::npos);
  r.entry_ns = {40, 1600};
  const std::string line = RankSamplesToJsonLine(r);
  EXPECT_NE(line.find("\"samples_ns\":[1500,2500],\"entry_ns\":[40,1600]}"), std::string::npos) << line;
  auto back = ParseRankSamplesLine(line);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->entry_ns, (std::vector<int64_t>{40, 1600}));
  nlohmann::json older = nlohmann::json::parse(line);
  older.erase("entry_ns");
  auto old_back = ReadRankSamples(older);
  ASSERT_TRUE(old_back.ok()) << old_back.status().message();
  EXPECT_TRUE(old_back->entry_ns.empty());
  older["entry_ns"] = {-5};
  EXPECT_FALSE(ReadRankSamples(older).ok());
}

TEST(RankSamplesTest, AMisspelledOrMistypedFieldIsAnError) {
  nlohmann::json j = nlohmann::json::parse(RankSamplesToJsonLine(RankSamples{}));
  j.erase("samples_ns");
  j["sample_ns"] = {1.0};
  auto missing = ReadRankSamples(j);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "rank line.samples_ns: missing");
  j["samples_ns"] = {1.0, "2"};
  auto mistyped = ReadRankSamples(j);
  ASSERT_FALSE(mistyped.ok());
  EXPECT_EQ(mistyped.status().message(), "rank line.samples_ns[1]: expected a number, got a string");
  EXPECT_FALSE(ParseRankSamplesLine("{\"rank\": 1").ok());
}

}  // namespace
}  // namespace commbench::result
