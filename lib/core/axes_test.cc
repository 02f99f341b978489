#include "lib/core/axes.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

// Every name parses back to its value; the spellings are those of result files, flags and the HTML.
TEST(AxesTest, NamesRoundTrip) {
  for (Sync v : AllSyncs()) EXPECT_EQ(*ParseSync(Name(v)), v);
  for (StreamKind v : AllStreamKinds()) EXPECT_EQ(*ParseStreamKind(Name(v)), v);
  for (H2dKind v : AllH2dKinds()) EXPECT_EQ(*ParseH2dKind(Name(v)), v);
  for (Concurrency v : {Concurrency::kConcurrent, Concurrency::kSequential}) {
    EXPECT_EQ(*ParseConcurrency(Name(v)), v);
  }
  for (Pin v : {Pin::kNone, Pin::kCompact, Pin::kSpread}) EXPECT_EQ(*ParsePin(Name(v)), v);
  for (InPlace v : {InPlace::kAuto, InPlace::kYes, InPlace::kNo}) EXPECT_EQ(*ParseInPlace(Name(v)), v);
  for (Launcher v : {Launcher::kLocal, Launcher::kMpirun, Launcher::kSrun}) EXPECT_EQ(*ParseLauncher(Name(v)), v);
  for (GroupBy v : {GroupBy::kConsecutive, GroupBy::kHost, GroupBy::kSpread}) EXPECT_EQ(*ParseGroupBy(Name(v)), v);
  for (DeviceKind v : {DeviceKind::kCpu, DeviceKind::kGpu}) EXPECT_EQ(*ParseDeviceKind(Name(v)), v);
  for (bool v : {false, true}) EXPECT_EQ(*ParseGraph(GraphName(v)), v);
}

TEST(AxesTest, Spellings) {
  EXPECT_EQ(Name(Sync::kGroupBarrier), "group-barrier");
  EXPECT_EQ(Name(Sync::kWorldBarrier), "world-barrier");
  EXPECT_EQ(Name(Concurrency::kSequential), "sequential");
  EXPECT_EQ(Name(StreamKind::kLegacyDefault), "legacy-default");
  EXPECT_EQ(Name(StreamKind::kPerThread), "per-thread");
  EXPECT_EQ(Name(Launcher::kMpirun), "mpirun");
  EXPECT_EQ(GraphName(true), "on");
  EXPECT_EQ(AllSyncs().size(), 6u);
  EXPECT_EQ(AllStreamKinds().size(), 3u);
  EXPECT_EQ(AllH2dKinds().size(), 3u);
}

// The flag's error names the flag, the value and every accepted value, in the order --help lists them.
TEST(AxesTest, ErrorsNameTheFlagTheValueAndTheAcceptedValues) {
  EXPECT_EQ(ParseSync("sometimes").status().message(),
            "--sync: unknown value 'sometimes' (accepted: none, group-barrier, world-barrier, stream, event, device)");
  EXPECT_EQ(ParseStreamKind("default").status().message(),
            "--stream: unknown value 'default' (accepted: legacy-default, per-thread, dedicated)");
  EXPECT_EQ(ParseH2dKind("PINNED").status().message(),  // case matters: one spelling in result files
            "--h2d: unknown value 'PINNED' (accepted: none, pageable, pinned)");
  EXPECT_EQ(ParseConcurrency("serial").status().message(),
            "--concurrency: unknown value 'serial' (accepted: concurrent, sequential)");
  EXPECT_EQ(ParsePin("tight").status().message(), "--pin: unknown value 'tight' (accepted: none, compact, spread)");
  EXPECT_EQ(ParseInPlace("maybe").status().message(), "--in-place: unknown value 'maybe' (accepted: auto, yes, no)");
  EXPECT_EQ(ParseLauncher("pbs").status().message(), "--launcher: unknown value 'pbs' (accepted: local, mpirun, srun)");
  EXPECT_EQ(ParseGroupBy("node").status().message(),
            "--group-by: unknown value 'node' (accepted: consecutive, host, spread)");
  EXPECT_EQ(ParseGraph("1").status().message(), "--graph: unknown value '1' (accepted: off, on)");
  EXPECT_EQ(ParseSync("x", "point field 'sync': unknown value").status().message(),
            "point field 'sync': unknown value 'x' (accepted: none, group-barrier, world-barrier, stream, event, "
            "device)");
  EXPECT_EQ(ParseSync("x").status().code(), StatusCode::kInvalidArgument);
}

TEST(AxesTest, GpuOnlySyncs) {
  for (Sync s : {Sync::kStream, Sync::kEvent, Sync::kDevice}) EXPECT_TRUE(IsGpuOnly(s)) << Name(s);
  for (Sync s : {Sync::kNone, Sync::kGroupBarrier, Sync::kWorldBarrier}) EXPECT_FALSE(IsGpuOnly(s)) << Name(s);
}

}  // namespace
}  // namespace commbench
