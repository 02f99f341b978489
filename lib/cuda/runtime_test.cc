// Host-side behaviour runs everywhere CUDA is installed; tests that need a device skip with the runtime's reason
// (GTEST_SKIP prints it, and test.xml records the test as skipped).
#include "lib/cuda/runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "lib/cuda/h2d.h"

namespace commbench::cuda {
namespace {

#define SKIP_WITHOUT_DEVICE()                                                      \
  do {                                                                             \
    Status usable = DeviceUsable();                                                \
    if (!usable.ok()) GTEST_SKIP() << "needs a CUDA device: " << usable.message(); \
  } while (0)

TEST(RuntimeTest, ErrorsCarryTheRuntimeNameAndMessage) {
  EXPECT_TRUE(FromCudaError(0, "x").ok());
  Status s = FromCudaError(2, "cudaMalloc(64 B)");  // cudaErrorMemoryAllocation
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.message(), "cudaMalloc(64 B): cudaErrorMemoryAllocation: out of memory");
}

TEST(RuntimeTest, DeviceUsableAgreesWithDeviceCount) {
  Status usable = DeviceUsable();
  if (usable.ok()) {
    EXPECT_GT(DeviceCount(), 0);
  } else {
    EXPECT_EQ(usable.code(), StatusCode::kUnavailable);
    EXPECT_EQ(DeviceCount(), 0);
    EXPECT_FALSE(usable.message().empty());
    std::printf("no device here: %s\n", usable.message().c_str());
  }
}

TEST(RuntimeTest, RuntimeVersionNeedsNoDevice) {
  // 13.0 is 13000; any CUDA this code builds against is >= 11.0 (graphs with thread-local capture).
  EXPECT_GE(RuntimeVersion(), 11000);
  if (!DeviceUsable().ok()) {
    EXPECT_GE(DriverVersion(), 0);
  }
}

TEST(RuntimeTest, DefaultStreamsWrapSpecialHandles) {
  auto legacy = Stream::Create(StreamKind::kLegacyDefault);
  ASSERT_TRUE(legacy.ok()) << legacy.status().message();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(legacy->handle()), 0x1u);  // cudaStreamLegacy
  EXPECT_EQ(legacy->kind(), StreamKind::kLegacyDefault);
  auto per_thread = Stream::Create(StreamKind::kPerThread);
  ASSERT_TRUE(per_thread.ok()) << per_thread.status().message();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(per_thread->handle()), 0x2u);  // cudaStreamPerThread
  Stream moved = std::move(per_thread).value();
  EXPECT_EQ(moved.kind(), StreamKind::kPerThread);
}

TEST(RuntimeTest, GraphCaptureRefusesLegacyDefaultStreamBeforeCallingCuda) {
  auto legacy = Stream::Create(StreamKind::kLegacyDefault);
  ASSERT_TRUE(legacy.ok());
  bool body_ran = false;
  auto graph = Graph::Capture(*legacy, [&] {
    body_ran = true;
    return OkStatus();
  });
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(body_ran);
}

TEST(RuntimeTest, PageableHostBufferNeedsNoDevice) {
  auto buf = HostBuffer::Create(10000, /*pinned=*/false);
  ASSERT_TRUE(buf.ok()) << buf.status().message();
  EXPECT_EQ(buf->size(), 10000u);
  EXPECT_FALSE(buf->pinned());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buf->data()) % 4096, 0u);
  std::memset(buf->data(), 0xab, buf->size());  // writable end to end (ASan would flag an overrun)
  HostBuffer other = std::move(buf).value();
  EXPECT_EQ(other.size(), 10000u);
  HostBuffer assigned;
  assigned = std::move(other);
  EXPECT_EQ(assigned.size(), 10000u);
  EXPECT_EQ(other.data(), nullptr);  // NOLINT(bugprone-use-after-move): checking the moved-from state
}

TEST(RuntimeTest, InactiveH2dWorkloadDoesNothing) {
  auto w = H2dWorkload::Create(H2dKind::kNone, 0);
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w->active());
  auto stream = Stream::Create(StreamKind::kLegacyDefault);
  ASSERT_TRUE(stream.ok());
  EXPECT_TRUE(w->Enqueue(*stream).ok());
  EXPECT_TRUE(w->Verify(*stream).ok());
}

TEST(RuntimeTest, WithoutDeviceCallsFailWithTheRuntimeMessage) {
  if (DeviceUsable().ok()) GTEST_SKIP() << "a device is present: the error path does not apply";
  auto dedicated = Stream::Create(StreamKind::kDedicated);
  ASSERT_FALSE(dedicated.ok());
  EXPECT_NE(dedicated.status().message().find("cudaStreamCreate: cuda"), std::string::npos)
      << dedicated.status().message();
  auto dev = DeviceBuffer::Create(64);
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.status().message().find("cudaMalloc(64 B)"), std::string::npos) << dev.status().message();
}

// ---- Device tests

TEST(RuntimeDeviceTest, StreamsEventsAndTiming) {
  SKIP_WITHOUT_DEVICE();
  ASSERT_TRUE(SetDevice(0).ok());
  for (StreamKind kind : AllStreamKinds()) {
    auto stream = Stream::Create(kind);
    ASSERT_TRUE(stream.ok()) << stream.status().message();
    auto start = Event::Create(true);
    auto end = Event::Create(true);
    ASSERT_TRUE(start.ok() && end.ok());
    auto dev = DeviceBuffer::Create(1 << 20);
    ASSERT_TRUE(dev.ok()) << dev.status().message();
    std::vector<char> host(1 << 20, 7);
    ASSERT_TRUE(start->Record(*stream).ok());
    ASSERT_TRUE(CopyAsync(dev->data(), host.data(), host.size(), CopyKind::kHostToDevice, *stream).ok());
    ASSERT_TRUE(end->Record(*stream).ok());
    ASSERT_TRUE(end->Synchronize().ok());
    EXPECT_TRUE(*end->Done());
    EXPECT_TRUE(*stream->Done());
    auto ms = end->MillisecondsSince(*start);
    ASSERT_TRUE(ms.ok()) << ms.status().message();
    EXPECT_GE(*ms, 0.0f);
  }
}

TEST(RuntimeDeviceTest, H2dWorkloadCopiesEveryByte) {
  SKIP_WITHOUT_DEVICE();
  ASSERT_TRUE(SetDevice(0).ok());
  auto stream = Stream::Create(StreamKind::kDedicated);
  ASSERT_TRUE(stream.ok());
  for (H2dKind kind : {H2dKind::kPageable, H2dKind::kPinned}) {
    auto w = H2dWorkload::Create(kind, (3 << 20) + 5);
    ASSERT_TRUE(w.ok()) << w.status().message();
    EXPECT_TRUE(w->active());
    ASSERT_TRUE(w->Enqueue(*stream).ok());
    Status v = w->Verify(*stream);
    EXPECT_TRUE(v.ok()) << Name(kind) << ": " << v.message();
  }
}

TEST(RuntimeDeviceTest, GraphReplaysAPinnedCopy) {
  SKIP_WITHOUT_DEVICE();
  ASSERT_TRUE(SetDevice(0).ok());
  auto stream = Stream::Create(StreamKind::kDedicated);
  ASSERT_TRUE(stream.ok());
  auto w = H2dWorkload::Create(H2dKind::kPinned, 1 << 16);
  ASSERT_TRUE(w.ok()) << w.status().message();
  const H2dWorkload& workload = *w;
  auto graph = Graph::Capture(*stream, [&] { return workload.Enqueue(*stream); });
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(graph->Launch(*stream).ok());
  EXPECT_TRUE(w->Verify(*stream).ok());
}

}  // namespace
}  // namespace commbench::cuda
