// A small C++ facade over the CUDA runtime: devices, streams, events, device and host buffers, copies and CUDA
// graphs, with errors as Status values that carry the runtime's own message. No CUDA types here: handles are
// opaque pointers, so that users of this header compile without cuda_runtime.h. Only built when CUDA is present
// (see BUILD.bazel); every call works without a GPU in the sense that it returns the runtime's error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "lib/core/status.h"
#include "lib/cuda/plan.h"

namespace commbench::cuda {

// Status for a CUDA runtime error code (cudaError_t as int): OK for cudaSuccess, otherwise
// Internal("<what>: <cudaGetErrorName>: <cudaGetErrorString>").
Status FromCudaError(int code, std::string_view what);

// OK when at least one CUDA device is usable; otherwise Unavailable with the runtime's reason (for
// Backend::Available and the skip line of device tests).
Status DeviceUsable();
// Number of usable devices, 0 when none (the reason is DeviceUsable's).
int DeviceCount();
Status SetDevice(int device);
// The current device's memory in use (cudaMemGetInfo: total less free), in bytes, by every process on it.
StatusOr<int64_t> DeviceMemoryUsedBytes();
Status DeviceSynchronize();
// cudaRuntimeGetVersion / cudaDriverGetVersion codes (e.g. 13000); 0 when unknown (no driver).
int RuntimeVersion();
int DriverVersion();

class Stream {
 public:
  // legacy-default and per-thread wrap CUDA's special handles; dedicated creates a non-blocking stream that
  // this object owns and destroys.
  static StatusOr<Stream> Create(StreamKind kind);
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();

  void* handle() const { return handle_; }  // a cudaStream_t
  StreamKind kind() const { return kind_; }
  Status Synchronize() const;
  // True when all work enqueued so far has completed.
  StatusOr<bool> Done() const;

 private:
  Stream(void* handle, StreamKind kind, bool owned) : handle_(handle), kind_(kind), owned_(owned) {}
  void* handle_ = nullptr;
  StreamKind kind_ = StreamKind::kDedicated;
  bool owned_ = false;
};

class Event {
 public:
  // Timing events cost a little more to record; sync-only events disable timing.
  static StatusOr<Event> Create(bool timing);
  Event() = default;  // no event yet; assign one from Create
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();

  void* handle() const { return handle_; }  // a cudaEvent_t
  Status Record(const Stream& stream);
  // Makes `stream` wait (on the device) until this event has completed; the host does not block.
  Status MakeStreamWait(const Stream& stream) const;
  StatusOr<bool> Done() const;
  Status Synchronize() const;
  // Milliseconds between `start` and this event; both must have completed.
  StatusOr<float> MillisecondsSince(const Event& start) const;

 private:
  explicit Event(void* handle) : handle_(handle) {}
  void* handle_ = nullptr;
};

// Device memory (cudaMalloc), freed on destruction.
class DeviceBuffer {
 public:
  static StatusOr<DeviceBuffer> Create(size_t bytes);
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void Release();
  void* data_ = nullptr;
  size_t size_ = 0;
};

// Host memory, pageable (aligned new) or pinned (cudaMallocHost). Pageable allocation needs no device.
class HostBuffer {
 public:
  static StatusOr<HostBuffer> Create(size_t bytes, bool pinned);
  HostBuffer() = default;
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer();

  void* data() const { return data_; }
  size_t size() const { return size_; }
  bool pinned() const { return pinned_; }

 private:
  void Release();
  void* data_ = nullptr;
  size_t size_ = 0;
  bool pinned_ = false;
};

enum class CopyKind { kHostToDevice, kDeviceToHost, kDeviceToDevice };
// cudaMemcpyAsync on `stream`. From pageable memory the runtime stages the copy and the host blocks: that is
// the effect scenario B is about, not a bug.
Status CopyAsync(void* dst, const void* src, size_t bytes, CopyKind kind, const Stream& stream);

// A CUDA graph captured from what `body` enqueues on `stream` (thread-local capture mode, so that other
// threads' CUDA calls are unaffected), instantiated once and launched many times.
class Graph {
 public:
  static StatusOr<Graph> Capture(const Stream& stream, const std::function<Status()>& body);
  Graph(Graph&& other) noexcept;
  Graph& operator=(Graph&& other) noexcept;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph();

  Status Launch(const Stream& stream) const;

 private:
  Graph(void* graph, void* exec) : graph_(graph), exec_(exec) {}
  void Release();
  void* graph_ = nullptr;  // cudaGraph_t
  void* exec_ = nullptr;   // cudaGraphExec_t
};

}  // namespace commbench::cuda
