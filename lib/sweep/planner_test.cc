#include "lib/sweep/planner.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "lib/sweep/point_json.h"

namespace commbench {
namespace {

TEST(PlannerTest, DefaultSweepReproducesScenarioA) {
  SweepSpec spec;
  auto plan = PlanSweep(spec);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  // Groups 1..8 of pairs: one launch per world size 2, 4, ..., 16, each with every size.
  ASSERT_EQ(plan->launches.size(), 8u);
  EXPECT_EQ(plan->launches[0].world, 2);
  EXPECT_EQ(plan->launches[7].world, 16);
  EXPECT_EQ(plan->point_count(), 8u * spec.sizes.size());
  const Point& a = plan->launches[0].points[0];
  EXPECT_EQ(a.backend, "gloo");
  EXPECT_EQ(a.op, Collective::kAllreduce);
  EXPECT_EQ(a.count, 100u);  // scenario A: a 10x10 float tensor
  EXPECT_EQ(a.bytes, 400u);
  EXPECT_TRUE(a.in_place);  // gloo's allreduce works in place; auto placement picks it
  EXPECT_TRUE(plan->skipped.empty());
}

TEST(PlannerTest, CountsFollowNcclTests) {
  SweepSpec spec;
  spec.ops = {"allgather", "reduce_scatter"};
  spec.groups = {1};
  spec.group_sizes = {3};
  spec.sizes = {4096};
  auto plan = PlanSweep(spec);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->point_count(), 2u);
  for (const Point& p : plan->launches[0].points) {
    EXPECT_EQ(p.count, 341u);            // 1024 floats / 3 ranks, rounded down
    EXPECT_EQ(p.bytes, 341u * 3 * 4);    // the size actually moved
  }
}

TEST(PlannerTest, UnsupportedCombinationsAreSkippedWithTheReason) {
  SweepSpec spec;
  spec.dtypes = {"f32", "bf16"};
  spec.syncs = {"none", "event"};
  spec.groups = {1, 2};
  spec.sizes = {2, 400};
  auto plan = PlanSweep(spec);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->point_count(), 2u);  // f32, sync none, 400 B, groups 1 and 2
  std::vector<std::string> reasons;
  for (const auto& s : plan->skipped) reasons.push_back(s.what + ": " + s.reason);
  auto has = [&](const std::string& text) {
    for (const auto& r : reasons) {
      if (r.find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("gloo has no bf16 type")) << testing::PrintToString(reasons);
  EXPECT_TRUE(has("gloo --sync event: applies to GPU backends only")) << testing::PrintToString(reasons);
  EXPECT_TRUE(has("holds less than one f32 element")) << testing::PrintToString(reasons);
}

TEST(PlannerTest, AlgosUnknownToABackendAreNoted) {
  SweepSpec spec;
  spec.algos = {"ring", "halving_doubling", "bcube"};
  spec.groups = {1};
  spec.sizes = {400};
  auto plan = PlanSweep(spec);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->point_count(), 2u);
  ASSERT_EQ(plan->skipped.size(), 1u);
  EXPECT_EQ(plan->skipped[0].reason, "gloo has no allreduce algorithm 'bcube'");
}

TEST(PlannerTest, BadInputNamesTheValue) {
  SweepSpec spec;
  spec.backends = {"nope"};
  auto bad_backend = PlanSweep(spec);
  ASSERT_FALSE(bad_backend.ok());
  EXPECT_EQ(bad_backend.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_backend.status().message().find("unknown backend 'nope'"), std::string::npos);

  SweepSpec huge;
  huge.groups = {100};
  huge.group_sizes = {2};
  auto too_big = PlanSweep(huge);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().message(),
            "--groups 100 x --group-size 2 = world of 200 ranks exceeds the limit of 128 (accepted: world <= "
            "--max-world)");

  SweepSpec sync;
  sync.syncs = {"sometimes"};
  EXPECT_EQ(PlanSweep(sync).status().message(),
            "--sync: unknown value 'sometimes' (accepted: none, group-barrier, world-barrier, stream, event, device)");
  SweepSpec slow;
  slow.test_only_slow_rank = "x";
  EXPECT_FALSE(PlanSweep(slow).ok());
}

// --explain's additions vary one factor at a time: each added value meets only the requested values of the
// other axes, never another factor's addition.
TEST(PlannerTest, ExplainFactorsAreVariedOneAtATime) {
  SweepSpec spec;
  spec.groups = {1, 2};
  spec.sizes = {400};
  spec.cpus = {"", "0"};
  spec.pins = {"none", "compact"};
  spec.concurrencies = {"concurrent", "sequential"};
  auto product = PlanSweep(spec);
  ASSERT_TRUE(product.ok()) << product.status().message();
  EXPECT_EQ(product->point_count(), 2u * 2 * 2 * 2);  // without factors: the product
  spec.explain_factors = {{{{"cpus", "0"}}}, {{{"pin", "compact"}}}, {{{"concurrency", "sequential"}}}};
  auto plan = PlanSweep(spec);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->point_count(), 2u * 4);  // per group count: as asked, and each factor alone
  for (const Launch& l : plan->launches) {
    for (const Point& p : l.points) {
      int added = (p.cpus == "0") + (p.pin == "compact") + (p.concurrency == "sequential");
      EXPECT_LE(added, 1) << p.Id();
    }
  }
  EXPECT_EQ(SpecToJson(spec)["explain_factors"],
            nlohmann::json::parse(R"([[["cpus","0"]],[["pin","compact"]],[["concurrency","sequential"]]])"));
}

// Groups taking turns tell the backend that only their own ranks run at once.
TEST(PlannerTest, SequentialPointsRequestTheirGroupSizeAsConcurrentRanks) {
  Point p;
  p.group_size = 4;
  EXPECT_EQ(p.Request().concurrent_ranks, 0);  // every rank of the world
  p.concurrency = "sequential";
  EXPECT_EQ(p.Request().concurrent_ranks, 4);
}

TEST(PlannerTest, MpiNeedsTheMpirunLauncher) {
  SweepSpec spec;
  spec.backends = {"gloo", "mpi"};
  spec.groups = {1};
  spec.sizes = {400};
  auto local = PlanSweep(spec);
  ASSERT_TRUE(local.ok()) << local.status().message();
  EXPECT_EQ(local->point_count(), 1u);
  ASSERT_EQ(local->skipped.size(), 1u);
  EXPECT_EQ(local->skipped[0].what, "mpi");
  EXPECT_EQ(local->skipped[0].reason, "its ranks must be started with --launcher mpirun");
  spec.launcher = "mpirun";
  auto mpirun = PlanSweep(spec);
  ASSERT_TRUE(mpirun.ok()) << mpirun.status().message();
  EXPECT_EQ(mpirun->point_count(), 2u);
  // An MPI rank is a process: rank threads are skipped for it with that note, and still run for gloo.
  spec.ranks_per_process = {1, 2};
  auto threads = PlanSweep(spec);
  ASSERT_TRUE(threads.ok()) << threads.status().message();
  EXPECT_EQ(threads->point_count(), 3u);
  ASSERT_EQ(threads->skipped.size(), 1u);
  EXPECT_EQ(threads->skipped[0].what, "mpi --ranks-per-process 2");
  EXPECT_EQ(threads->skipped[0].reason, "each mpi rank is a process of its own");
}

TEST(PointJsonTest, RoundTrip) {
  SweepSpec spec;
  spec.groups = {3};
  spec.syncs = {"world-barrier"};
  spec.cpus = {"0"};
  auto plan = PlanSweep(spec);
  ASSERT_TRUE(plan.ok());
  const Point& p = plan->launches[0].points[1];
  auto back = PointFromJson(PointToJson(p));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->Id(), p.Id());
  EXPECT_EQ(PointToJson(*back), PointToJson(p));
  EXPECT_FALSE(PointFromJson(nlohmann::json{{"backend", "gloo"}}).ok());
  EXPECT_EQ(SpecToJson(spec)["groups"], nlohmann::json({3}));
}

}  // namespace
}  // namespace commbench
