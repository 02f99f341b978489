#include "lib/sweep/planner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "lib/model/point_json.h"

namespace commbench {
namespace {

// Fake backends: what the planner reads of a backend, with the shared capability check as Supports.
BackendDescription Fake(const std::string& name, const BackendCapabilities& caps,
                        std::vector<AlgorithmInfo> algorithms) {
  BackendDescription d;
  d.name = name;
  d.available = OkStatus();
  d.capabilities = caps;
  d.algorithms = std::move(algorithms);
  d.supports = [name, caps](const OpRequest& r, int /*group_size*/) { return CheckCapabilities(name, caps, r); };
  return d;
}

// Like gloo: no bf16, the reductions in place and allgather out of place.
BackendDescription GlooLike() {
  BackendCapabilities caps;
  caps.dtypes = {DataType::kF32, DataType::kF64, DataType::kI32, DataType::kF16};
  caps.in_place_ops = {Collective::kAllreduce, Collective::kReduceScatter};
  caps.out_of_place_ops = {Collective::kAllgather};
  return Fake("gloo", caps,
              {{"ring", Collective::kAllreduce, "", ""},
               {"halving_doubling", Collective::kAllreduce, "", ""},
               {"ring", Collective::kAllgather, "", ""},
               {"ring_slice", Collective::kReduceScatter, "", ""}});
}

// Like mpi: started by mpirun, one rank per process.
BackendDescription MpiLike() {
  BackendCapabilities caps;
  caps.launcher = Launcher::kMpirun;
  caps.one_rank_per_process = true;
  return Fake("mpi", caps, {{"default", Collective::kAllreduce, "", ""}});
}

// Like nccl: device buffers, so the GPU axes apply.
BackendDescription GpuLike() {
  BackendCapabilities caps;
  caps.device = DeviceKind::kGpu;
  return Fake("gpu", caps, {});
}

std::vector<BackendDescription> Fakes() { return {GlooLike(), MpiLike(), GpuLike()}; }

StatusOr<Plan> PlanSweep(const SweepSpec& spec) { return commbench::PlanSweep(spec, Fakes()); }

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
    EXPECT_EQ(p.count, 341u);          // 1024 floats / 3 ranks, rounded down
    EXPECT_EQ(p.bytes, 341u * 3 * 4);  // the size actually moved
  }
}

TEST(PlannerTest, UnsupportedCombinationsAreSkippedWithTheReason) {
  SweepSpec spec;
  spec.dtypes = {"f32", "bf16"};
  spec.syncs = {Sync::kNone, Sync::kEvent};
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

// --time-budget-above: a point takes the entry of the largest size at or below its own, else --time-budget; a
// budget out of range is refused with the value; the spec records the entries, and only when given.
TEST(PlannerTest, ABudgetAboveASizeCoversTheLargerPointsOnly) {
  SweepSpec spec;
  spec.time_budget_s = 0.05;
  EXPECT_FALSE(SpecToJson(spec).contains("time_budget_above"));
  spec.time_budget_above = {{256 << 10, 0.4}, {16 << 20, 1.0}};
  EXPECT_DOUBLE_EQ(TimeBudgetFor(spec, 400), 0.05);
  EXPECT_DOUBLE_EQ(TimeBudgetFor(spec, (256 << 10) - 1), 0.05);
  EXPECT_DOUBLE_EQ(TimeBudgetFor(spec, 256 << 10), 0.4);
  EXPECT_DOUBLE_EQ(TimeBudgetFor(spec, 1 << 20), 0.4);
  EXPECT_DOUBLE_EQ(TimeBudgetFor(spec, 64 << 20), 1.0);
  EXPECT_EQ(SpecToJson(spec)["time_budget_above"],
            nlohmann::json::parse(R"([{"bytes":262144,"seconds":0.4},{"bytes":16777216,"seconds":1.0}])"));
  EXPECT_TRUE(ValidateSpec(spec).ok());
  spec.time_budget_above[1 << 20] = 0;
  EXPECT_EQ(ValidateSpec(spec).message(),
            "--time-budget-above: invalid value 0.000000 s for 1048576 B (accepted: seconds above 0 and at most 3600)");
}

TEST(PlannerTest, BadInputNamesTheValue) {
  SweepSpec spec;
  spec.backends = {"nope"};
  auto bad_backend = PlanSweep(spec);  // not described: the caller's registry did not know it
  ASSERT_FALSE(bad_backend.ok());
  EXPECT_EQ(bad_backend.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad_backend.status().message(), "--backends: unknown backend 'nope'");

  SweepSpec huge;
  huge.groups = {100};
  huge.group_sizes = {2};
  auto too_big = PlanSweep(huge);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().message(),
            "--groups 100 x --group-size 2 = world of 200 ranks exceeds the limit of 128 (accepted: world <= "
            "--max-world)");

  SweepSpec slow;
  slow.test_only_slow_rank = "x";
  EXPECT_FALSE(PlanSweep(slow).ok());

  SweepSpec hang;
  for (const char* bad : {"x", "1:0", "1:", ":5", "1:2:3"}) {
    hang.test_only_hang_rank = bad;
    auto refused = PlanSweep(hang);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().message(), std::string("--test-only-hang-rank: invalid value '") + bad +
                                              "' (accepted: RANK:ITER with ITER >= 1, e.g. 1:5)");
  }
  hang.test_only_hang_rank = "1:5";
  EXPECT_TRUE(PlanSweep(hang).ok());

  SweepSpec checks;
  for (double bad : {-0.1, 1.5, std::nan("")}) {
    checks.check_rate = bad;
    auto refused = PlanSweep(checks);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().message().rfind("--check-rate: invalid value ", 0), 0u) << refused.status().message();
  }
  for (double fine : {0.0, 1.0 / 256, 1.0}) {
    checks.check_rate = fine;
    EXPECT_TRUE(PlanSweep(checks).ok()) << fine;
  }

  SweepSpec repeats;
  for (int64_t bad : {0, -1, 1001}) {
    repeats.repeats = bad;
    auto refused = PlanSweep(repeats);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().message(),
              "--repeats: invalid value " + std::to_string(bad) + " (accepted: 1 to 1000 fresh launches per point)");
  }
  repeats.repeats = 5;
  EXPECT_TRUE(PlanSweep(repeats).ok());

  SweepSpec cap;
  cap.sample_cap = -1;
  auto refused_cap = PlanSweep(cap);
  ASSERT_FALSE(refused_cap.ok());
  EXPECT_EQ(refused_cap.status().message(),
            "--sample-cap: invalid value -1 (accepted: 0 or more raw samples kept per rank)");
  cap.sample_cap = 0;
  EXPECT_TRUE(PlanSweep(cap).ok());

  SweepSpec slowdown;
  for (double bad : {-0.1, 11.0, std::nan("")}) {
    slowdown.test_only_uniform_slowdown = bad;
    auto refused = PlanSweep(slowdown);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().message().rfind("--test-only-uniform-slowdown: invalid value ", 0), 0u);
  }
  slowdown.test_only_uniform_slowdown = 0.05;
  EXPECT_TRUE(PlanSweep(slowdown).ok());
}

// --explain's additions vary one factor at a time: each added value meets only the requested values of the
// other axes, never another factor's addition.
TEST(PlannerTest, ExplainFactorsAreVariedOneAtATime) {
  SweepSpec spec;
  spec.groups = {1, 2};
  spec.sizes = {400};
  spec.cpus = {"", "0"};
  spec.pins = {Pin::kNone, Pin::kCompact};
  spec.concurrencies = {Concurrency::kConcurrent, Concurrency::kSequential};
  auto product = PlanSweep(spec);
  ASSERT_TRUE(product.ok()) << product.status().message();
  EXPECT_EQ(product->point_count(), 2u * 2 * 2 * 2);  // without factors: the product
  spec.explain_factors.resize(3);
  spec.explain_factors[0].cpus = {"0"};
  spec.explain_factors[1].pins = {Pin::kCompact};
  spec.explain_factors[2].concurrencies = {Concurrency::kSequential};
  auto plan = PlanSweep(spec);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->point_count(), 2u * 4);  // per group count: as asked, and each factor alone
  for (const Launch& l : plan->launches) {
    for (const Point& p : l.points) {
      int added = (p.cpus == "0") + (p.pin == Pin::kCompact) + (p.concurrency == Concurrency::kSequential);
      EXPECT_LE(added, 1) << p.Id();
    }
  }
  EXPECT_EQ(SpecToJson(spec)["explain_factors"],
            nlohmann::json::parse(R"([[["cpus","0"]],[["pin","compact"]],[["concurrency","sequential"]]])"));
}

// Groups taking turns tell the backend that only their own ranks run at once.
// --explain's A/B points: a list, admitted and grouped by launch as the product is, never multiplied.
TEST(PlannerTest, PlanPointsRunsExactlyTheListGroupedByLaunch) {
  SweepSpec spec;
  spec.groups = {1, 8};
  spec.sizes = {400};
  auto sweep = PlanSweep(spec);
  ASSERT_TRUE(sweep.ok()) << sweep.status().message();
  std::vector<Point> points;
  for (const Launch& l : sweep->launches) {
    for (Point p : l.points) {
      p.cpus = "0";
      points.push_back(p);
      p.cpus = "";
      p.pin = Pin::kCompact;
      points.push_back(p);
    }
  }
  Point unknown = points.front();
  unknown.algo = "no_such_algo";
  points.push_back(unknown);
  auto plan = PlanPoints(spec, points, Fakes());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  // G=1 and G=8, each once with one core and once pinned: four launches of one point; the unknown algorithm
  // is skipped with its reason.
  ASSERT_EQ(plan->launches.size(), 4u);
  EXPECT_EQ(plan->point_count(), 4u);
  for (const Launch& l : plan->launches) {
    ASSERT_EQ(l.points.size(), 1u);
    EXPECT_EQ(l.world, l.points[0].world());
    EXPECT_EQ(l.cpus, l.points[0].cpus);
    EXPECT_EQ(l.pin, l.points[0].pin);
    EXPECT_EQ(l.points[0].transport, GlooLike().capabilities.transport);
  }
  ASSERT_EQ(plan->skipped.size(), 1u);
  EXPECT_NE(plan->skipped[0].reason.find("no_such_algo"), std::string::npos);
  // Admission is the product's: already rounded sizes stay as they are.
  EXPECT_EQ(plan->launches[0].points[0].bytes, 400u);
  EXPECT_EQ(plan->launches[0].points[0].count, 100u);
  unknown.backend = "nosuch";
  EXPECT_FALSE(PlanPoints(spec, {unknown}, Fakes()).ok());
}

TEST(PlannerTest, SequentialPointsRequestTheirGroupSizeAsConcurrentRanks) {
  Point p;
  p.group_size = 4;
  EXPECT_EQ(RequestOf(p).concurrent_ranks, 0);  // every rank of the world
  p.concurrency = Concurrency::kSequential;
  EXPECT_EQ(RequestOf(p).concurrent_ranks, 4);
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
  spec.launcher = Launcher::kMpirun;
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

// What a backend can do comes from its description, never from its name.
TEST(PlannerTest, AGpuBackendGetsTheGpuAxes) {
  SweepSpec spec;
  spec.backends = {"gpu", "gloo"};
  spec.groups = {1};
  spec.sizes = {400};
  spec.syncs = {Sync::kNone, Sync::kEvent};
  spec.streams = {StreamKind::kLegacyDefault, StreamKind::kDedicated};
  spec.h2ds = {H2dKind::kPinned};
  spec.h2d_bytes = 64;
  auto plan = PlanSweep(spec);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::vector<std::string> ids;
  for (const Point& p : plan->launches[0].points) ids.push_back(p.Id());
  EXPECT_EQ(ids, (std::vector<std::string>{
                     "gpu/allreduce/auto/f32/sum/g1/k2/400B/out/sync=none/stream=legacy-default/h2d=pinned",
                     "gpu/allreduce/auto/f32/sum/g1/k2/400B/out/sync=none/stream=dedicated/h2d=pinned",
                     "gpu/allreduce/auto/f32/sum/g1/k2/400B/out/sync=event/stream=legacy-default/h2d=pinned",
                     "gpu/allreduce/auto/f32/sum/g1/k2/400B/out/sync=event/stream=dedicated/h2d=pinned",
                     "gloo/allreduce/auto/f32/sum/g1/k2/400B/in/sync=none",
                 }));
  const Point& event = plan->launches[0].points[2];
  EXPECT_EQ(event.device, DeviceKind::kGpu);
  EXPECT_EQ(RequestOf(event).gpu.sync, Sync::kEvent);
  EXPECT_EQ(RequestOf(event).gpu.h2d_bytes, 64u);
  // The CPU backend beside it runs none of the GPU values: the GPU sync is noted, the stream and h2d values are
  // not its axes, and so not a point of its own.
  std::vector<std::string> skipped;
  for (const auto& s : plan->skipped) skipped.push_back(s.what + ": " + s.reason);
  EXPECT_EQ(skipped, std::vector<std::string>{"gloo --sync event: applies to GPU backends only"});
}

TEST(PlannerTest, UnavailableBackendsAreSkippedWhole) {
  SweepSpec spec;
  spec.backends = {"gpu", "gloo"};
  spec.groups = {1};
  std::vector<BackendDescription> backends = Fakes();
  backends[2].available = Unavailable("no CUDA device");
  auto plan = commbench::PlanSweep(spec, backends);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->point_count(), 3u);
  ASSERT_EQ(plan->skipped.size(), 1u);
  EXPECT_EQ(plan->skipped[0].what, "gpu");
  EXPECT_EQ(plan->skipped[0].reason, "unavailable: no CUDA device");
}

TEST(PointJsonTest, GpuPointsCarryTheirAxes) {
  SweepSpec spec;
  spec.backends = {"gpu"};
  spec.groups = {2};
  spec.sizes = {4096};
  spec.syncs = {Sync::kStream};
  spec.streams = {StreamKind::kPerThread};
  spec.h2ds = {H2dKind::kPageable};
  auto plan = PlanSweep(spec);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const Point& p = plan->launches[0].points[0];
  nlohmann::json j = PointToJson(p);
  EXPECT_EQ(j["stream"], "per-thread");
  EXPECT_EQ(j["h2d"], "pageable");
  EXPECT_EQ(j["sync"], "stream");
  auto back = PointFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->device, DeviceKind::kGpu);  // inferred from the stream being there
  EXPECT_EQ(back->Id(), p.Id());
  EXPECT_EQ(PointToJson(*back), j);
}

TEST(PointJsonTest, UnknownNamesNameTheField) {
  SweepSpec spec;
  spec.groups = {1};
  spec.sizes = {400};
  auto plan = PlanSweep(spec);
  ASSERT_TRUE(plan.ok());
  nlohmann::json j = PointToJson(plan->launches[0].points[0]);
  EXPECT_TRUE(j["stream"].is_null());  // a CPU point has no GPU axes
  j["pin"] = "tight";
  EXPECT_EQ(PointFromJson(j).status().message(),
            "point field 'pin': unknown value 'tight' (accepted: none, compact, spread)");
}

// The result file's spec keeps today's spellings.
TEST(PointJsonTest, SpecSpellsTheAxes) {
  SweepSpec spec;
  spec.syncs = {Sync::kWorldBarrier, Sync::kNone};
  spec.graphs = {false, true};
  spec.explain_factors.resize(2);
  spec.explain_factors[0].syncs = {Sync::kNone};
  spec.explain_factors[1].streams = {StreamKind::kDedicated};
  spec.explain_factors[1].h2ds = {H2dKind::kPinned};
  nlohmann::json j = SpecToJson(spec);
  EXPECT_EQ(j["syncs"], nlohmann::json({"world-barrier", "none"}));
  EXPECT_EQ(j["graphs"], nlohmann::json({"off", "on"}));
  EXPECT_EQ(j["in_place"], "auto");
  EXPECT_EQ(j["launcher"], "local");
  EXPECT_EQ(j["pins"], nlohmann::json({"none"}));
  EXPECT_EQ(j["concurrencies"], nlohmann::json({"concurrent"}));
  EXPECT_EQ(j["streams"], nlohmann::json({"dedicated"}));
  EXPECT_EQ(j["h2ds"], nlohmann::json({"none"}));
  EXPECT_EQ(j["explain_factors"],
            nlohmann::json::parse(R"([[["sync","none"]],[["stream","dedicated"],["h2d","pinned"]]])"));
}

TEST(PointJsonTest, RoundTrip) {
  SweepSpec spec;
  spec.groups = {3};
  spec.syncs = {Sync::kWorldBarrier};
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

namespace commbench {
namespace {

// An acceptance phase is part of a point's identity: the same axes in two phases are two points.
TEST(PointJsonTest, ThePhaseIsPartOfTheIdAndRoundTrips) {
  Point p;
  p.backend = "gloo";
  p.groups = 4;
  p.group_size = 4;
  p.bytes = 1 << 20;
  const std::string plain = p.Id();
  EXPECT_EQ(PointToJson(p).count("phase"), 0u);  // a sweep's points are written as before
  p.phase = "pairs-2";
  EXPECT_EQ(p.Id(), plain + "/phase=pairs-2");
  auto back = PointFromJson(PointToJson(p));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->phase, "pairs-2");
  EXPECT_EQ(back->Id(), p.Id());
}

}  // namespace
}  // namespace commbench
