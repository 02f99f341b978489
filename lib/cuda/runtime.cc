#include "lib/cuda/runtime.h"

#include <dlfcn.h>

#include <cstdlib>
#include <new>
#include <utility>

// The C API only: cuda_runtime.h pulls in .hpp headers that @local_cuda does not declare (see
// lib/backend/nccl/nccl_include.h).
#include <cuda_runtime_api.h>

namespace commbench::cuda {
namespace {

cudaStream_t S(const Stream& s) { return static_cast<cudaStream_t>(s.handle()); }

cudaMemcpyKind ToCuda(CopyKind kind) {
  switch (kind) {
    case CopyKind::kHostToDevice:
      return cudaMemcpyHostToDevice;
    case CopyKind::kDeviceToHost:
      return cudaMemcpyDeviceToHost;
    case CopyKind::kDeviceToDevice:
      return cudaMemcpyDeviceToDevice;
  }
  return cudaMemcpyDefault;
}

// Host allocations are page-aligned so that a pageable buffer differs from a pinned one only in being pinned.
constexpr size_t kHostAlignment = 4096;

}  // namespace

Status FromCudaError(int code, std::string_view what) {
  if (code == cudaSuccess) return OkStatus();
  auto err = static_cast<cudaError_t>(code);
  return Internal(std::string(what) + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

Status DeviceUsable() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaSuccess && count > 0) return OkStatus();
  if (err == cudaSuccess) return Unavailable("no CUDA device (cudaGetDeviceCount returned 0)");
  std::string reason = std::string("no usable CUDA device: cudaGetDeviceCount: ") + cudaGetErrorString(err);
  // Without a driver the runtime says "driver version is insufficient", which reads like a version problem;
  // say what is actually missing.
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver == nullptr) {
    reason += " (no NVIDIA driver: libcuda.so.1 cannot be loaded)";
  } else {
    dlclose(driver);
  }
  return Unavailable(reason);
}

int DeviceCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

Status SetDevice(int device) {
  return FromCudaError(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
}

StatusOr<int64_t> DeviceMemoryUsedBytes() {
  size_t free_bytes = 0, total_bytes = 0;
  RETURN_IF_ERROR(FromCudaError(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"));
  return static_cast<int64_t>(total_bytes - free_bytes);
}

Status DeviceSynchronize() { return FromCudaError(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

int RuntimeVersion() {
  int v = 0;
  return cudaRuntimeGetVersion(&v) == cudaSuccess ? v : 0;
}

int DriverVersion() {
  int v = 0;
  return cudaDriverGetVersion(&v) == cudaSuccess ? v : 0;
}

// ---- Stream

StatusOr<Stream> Stream::Create(StreamKind kind) {
  switch (kind) {
    case StreamKind::kLegacyDefault:
      return Stream(cudaStreamLegacy, kind, false);
    case StreamKind::kPerThread:
      return Stream(cudaStreamPerThread, kind, false);
    case StreamKind::kDedicated: {
      cudaStream_t s = nullptr;
      RETURN_IF_ERROR(FromCudaError(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"));
      return Stream(s, kind, true);
    }
  }
  return InvalidArgument("unknown stream kind");
}

Stream::Stream(Stream&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), kind_(other.kind_), owned_(std::exchange(other.owned_, false)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (owned_) cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
    handle_ = std::exchange(other.handle_, nullptr);
    kind_ = other.kind_;
    owned_ = std::exchange(other.owned_, false);
  }
  return *this;
}

Stream::~Stream() {
  if (owned_) cudaStreamDestroy(static_cast<cudaStream_t>(handle_));
}

Status Stream::Synchronize() const { return FromCudaError(cudaStreamSynchronize(S(*this)), "cudaStreamSynchronize"); }

StatusOr<bool> Stream::Done() const {
  cudaError_t err = cudaStreamQuery(S(*this));
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) return false;
  return FromCudaError(err, "cudaStreamQuery");
}

// ---- Event

StatusOr<Event> Event::Create(bool timing) {
  cudaEvent_t e = nullptr;
  RETURN_IF_ERROR(FromCudaError(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming),
                                "cudaEventCreate"));
  return Event(e);
}

Event::Event(Event&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

Event::~Event() {
  if (handle_ != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(handle_));
}

Status Event::Record(const Stream& stream) {
  return FromCudaError(cudaEventRecord(static_cast<cudaEvent_t>(handle_), S(stream)), "cudaEventRecord");
}

Status Event::MakeStreamWait(const Stream& stream) const {
  return FromCudaError(cudaStreamWaitEvent(S(stream), static_cast<cudaEvent_t>(handle_), 0), "cudaStreamWaitEvent");
}

StatusOr<bool> Event::Done() const {
  cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(handle_));
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) return false;
  return FromCudaError(err, "cudaEventQuery");
}

Status Event::Synchronize() const {
  return FromCudaError(cudaEventSynchronize(static_cast<cudaEvent_t>(handle_)), "cudaEventSynchronize");
}

StatusOr<float> Event::MillisecondsSince(const Event& start) const {
  float ms = 0;
  RETURN_IF_ERROR(FromCudaError(
      cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start.handle_), static_cast<cudaEvent_t>(handle_)),
      "cudaEventElapsedTime"));
  return ms;
}

// ---- DeviceBuffer

StatusOr<DeviceBuffer> DeviceBuffer::Create(size_t bytes) {
  DeviceBuffer b;
  // cudaMalloc(0) returns no pointer; a 1-byte allocation keeps data() valid for zero-count points.
  RETURN_IF_ERROR(
      FromCudaError(cudaMalloc(&b.data_, bytes == 0 ? 1 : bytes), "cudaMalloc(" + std::to_string(bytes) + " B)"));
  b.size_ = bytes;
  return b;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { Release(); }

void DeviceBuffer::Release() {
  if (data_ != nullptr) cudaFree(data_);
  data_ = nullptr;
  size_ = 0;
}

// ---- HostBuffer

StatusOr<HostBuffer> HostBuffer::Create(size_t bytes, bool pinned) {
  HostBuffer b;
  size_t alloc = bytes == 0 ? 1 : bytes;
  if (pinned) {
    RETURN_IF_ERROR(FromCudaError(cudaMallocHost(&b.data_, alloc), "cudaMallocHost(" + std::to_string(bytes) + " B)"));
  } else {
    b.data_ = ::operator new(alloc, std::align_val_t(kHostAlignment), std::nothrow);
    if (b.data_ == nullptr) return Internal("host allocation of " + std::to_string(bytes) + " B failed");
  }
  b.size_ = bytes;
  b.pinned_ = pinned;
  return b;
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)), pinned_(other.pinned_) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    pinned_ = other.pinned_;
  }
  return *this;
}

HostBuffer::~HostBuffer() { Release(); }

void HostBuffer::Release() {
  if (data_ != nullptr) {
    if (pinned_) {
      cudaFreeHost(data_);
    } else {
      ::operator delete(data_, std::align_val_t(kHostAlignment));
    }
  }
  data_ = nullptr;
  size_ = 0;
}

// ---- Copies

Status CopyAsync(void* dst, const void* src, size_t bytes, CopyKind kind, const Stream& stream) {
  if (bytes == 0) return OkStatus();
  return FromCudaError(cudaMemcpyAsync(dst, src, bytes, ToCuda(kind), S(stream)),
                       "cudaMemcpyAsync(" + std::to_string(bytes) + " B)");
}

// ---- Graph

StatusOr<Graph> Graph::Capture(const Stream& stream, const std::function<Status()>& body) {
  if (stream.kind() == StreamKind::kLegacyDefault) {
    return InvalidArgument("CUDA cannot capture a graph on the legacy default stream");
  }
  RETURN_IF_ERROR(
      FromCudaError(cudaStreamBeginCapture(S(stream), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture"));
  Status body_status = body();
  cudaGraph_t graph = nullptr;
  // End the capture even when the body failed, or the stream stays in capture mode.
  cudaError_t end = cudaStreamEndCapture(S(stream), &graph);
  if (!body_status.ok() || end != cudaSuccess) {
    if (graph != nullptr) cudaGraphDestroy(graph);
    if (!body_status.ok()) return body_status;
    return FromCudaError(end, "cudaStreamEndCapture");
  }
  cudaGraphExec_t exec = nullptr;
  cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
  if (inst != cudaSuccess) {
    cudaGraphDestroy(graph);
    return FromCudaError(inst, "cudaGraphInstantiate");
  }
  return Graph(graph, exec);
}

Graph::Graph(Graph&& other) noexcept
    : graph_(std::exchange(other.graph_, nullptr)), exec_(std::exchange(other.exec_, nullptr)) {}

Graph& Graph::operator=(Graph&& other) noexcept {
  if (this != &other) {
    Release();
    graph_ = std::exchange(other.graph_, nullptr);
    exec_ = std::exchange(other.exec_, nullptr);
  }
  return *this;
}

Graph::~Graph() { Release(); }

void Graph::Release() {
  if (exec_ != nullptr) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec_));
  if (graph_ != nullptr) cudaGraphDestroy(static_cast<cudaGraph_t>(graph_));
  exec_ = nullptr;
  graph_ = nullptr;
}

Status Graph::Launch(const Stream& stream) const {
  return FromCudaError(cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec_), S(stream)), "cudaGraphLaunch");
}

}  // namespace commbench::cuda
