#include "lib/traffic/assumed.h"

#include <gtest/gtest.h>

#include "lib/backend/native/algorithm_choice.h"

namespace commbench::traffic {
namespace {

BackendCapabilities Modelled(TrafficModel model, Transport transport) {
  BackendCapabilities caps;
  caps.traffic_model = model;
  caps.transport = transport;
  return caps;
}

const BackendCapabilities kNative = Modelled(TrafficModel::kNativeSchedules, Transport::kSharedMemory);
const BackendCapabilities kNativeTcp = Modelled(TrafficModel::kNativeSchedules, Transport::kTcp);
const BackendCapabilities kGloo = Modelled(TrafficModel::kGlooAlgorithms, Transport::kTcp);
const BackendCapabilities kTextbook = Modelled(TrafficModel::kTextbook, Transport::kSharedMemory);

std::string Native(native::Transport transport, size_t count, int world) {
  OpRequest r;
  r.op = Collective::kAllreduce;
  r.dtype = DataType::kBF16;
  r.count = count;
  return native::ChooseAlgorithm(transport, r, world);
}

TEST(AlgorithmFor, ANamedAlgorithmWinsOnEveryModel) {
  for (const auto& caps : {kNative, kNativeTcp, kGloo, kTextbook}) {
    EXPECT_EQ(AlgorithmFor(caps, "ring", "shm", DataType::kBF16, 8)(1 << 20), "ring");
  }
}

TEST(AlgorithmFor, AutoIsWhatEachModelRuns) {
  EXPECT_EQ(AlgorithmFor(kGloo, "auto", "tcp", DataType::kBF16, 8)(1 << 20), "ring");
  EXPECT_EQ(AlgorithmFor(kTextbook, "auto", "tcp", DataType::kBF16, 8)(1 << 20), "auto");
  for (size_t count : {size_t{16}, size_t{1} << 12, size_t{1} << 24}) {
    EXPECT_EQ(AlgorithmFor(kNative, "auto", "shm", DataType::kBF16, 4)(count),
              Native(native::Transport::kShm, count, 4))
        << count;
    EXPECT_EQ(AlgorithmFor(kNative, "auto", "tcp", DataType::kBF16, 4)(count),
              Native(native::Transport::kTcp, count, 4))
        << count;
    // native-tcp runs TCP whatever --transport says.
    EXPECT_EQ(AlgorithmFor(kNativeTcp, "auto", "shm", DataType::kBF16, 4)(count),
              Native(native::Transport::kTcp, count, 4))
        << count;
  }
}

TEST(AssumedTransport, OnlyTheNativeSchedulesAssumeOne) {
  EXPECT_EQ(AssumedTransport(kNative, "shm"), "shm");
  EXPECT_EQ(AssumedTransport(kNative, "tcp"), "tcp");
  EXPECT_EQ(AssumedTransport(kNativeTcp, "shm"), "tcp");
  EXPECT_EQ(AssumedTransport(kGloo, "shm"), "");
  EXPECT_EQ(AssumedTransport(kTextbook, "tcp"), "");
}

}  // namespace
}  // namespace commbench::traffic
