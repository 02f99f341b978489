// A bare NCCL allreduce loop, written straight against the CUDA runtime and NCCL with nothing of commbench's
// harness, to measure the harness's overhead: run the same point here and under `commbench sweep --backends
// nccl` and compare the per-iteration p50 (the issue asks for agreement within 2%).
//
// Like commbench at --group-size 1 --ranks-per-process G, each of --groups threads drives its own one-rank
// communicator on GPU (thread % devices). Each iteration: [H2D copy of --h2d-bytes] + ncclAllReduce on the
// chosen stream, then the sync strategy; the host clock times each iteration, CUDA events the device side.
//
//   nccl_bare_loop [--bytes 1048576] [--iters 1000] [--warmup 20] [--groups 1]
//                  [--stream dedicated|per-thread|legacy-default] [--h2d none|pageable|pinned] [--h2d-bytes N]
//                  [--sync stream|event|device|none] [--comm blocking|nonblocking]
//
// --comm nonblocking creates the communicator as commbench does (config.blocking = 0, polled until ready), to
// tell the communicator mode apart from the harness when the two disagree.
//
// Without a usable device it prints one line saying why and exits 0 (skipped).
#include <getopt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lib/backend/nccl/nccl_include.h"

namespace {

struct Options {
  size_t bytes = 1 << 20;
  int iters = 1000;
  int warmup = 20;
  int groups = 1;
  std::string stream = "dedicated";
  std::string h2d = "none";
  size_t h2d_bytes = 0;  // 0: as many as --bytes
  std::string sync = "stream";
  std::string comm = "blocking";
};

#define CUDA_OR_DIE(call)                                                              \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "nccl_bare_loop: %s: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

#define NCCL_OR_DIE(call)                                                              \
  do {                                                                                 \
    ncclResult_t r_ = (call);                                                          \
    if (r_ != ncclSuccess) {                                                           \
      std::fprintf(stderr, "nccl_bare_loop: %s: %s\n", #call, ncclGetErrorString(r_)); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "nccl_bare_loop: %s\nusage: nccl_bare_loop [--bytes N] [--iters N] [--warmup N] [--groups G] "
               "[--stream dedicated|per-thread|legacy-default] [--h2d none|pageable|pinned] [--h2d-bytes N] "
               "[--sync stream|event|device|none] [--comm blocking|nonblocking]\n",
               why);
  std::exit(2);
}

bool OneOf(const std::string& v, std::initializer_list<const char*> accepted) {
  for (const char* a : accepted) {
    if (v == a) return true;
  }
  return false;
}

Options Parse(int argc, char** argv) {
  Options o;
  static const option kLong[] = {{"bytes", required_argument, nullptr, 'b'},
                                 {"iters", required_argument, nullptr, 'i'},
                                 {"warmup", required_argument, nullptr, 'w'},
                                 {"groups", required_argument, nullptr, 'g'},
                                 {"stream", required_argument, nullptr, 's'},
                                 {"h2d", required_argument, nullptr, 'h'},
                                 {"h2d-bytes", required_argument, nullptr, 'H'},
                                 {"sync", required_argument, nullptr, 'y'},
                                 {"comm", required_argument, nullptr, 'c'},
                                 {"help", no_argument, nullptr, '?'},
                                 {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", kLong, nullptr)) != -1) {
    switch (c) {
      case 'b':
        o.bytes = std::strtoull(optarg, nullptr, 10);
        break;
      case 'i':
        o.iters = std::atoi(optarg);
        break;
      case 'w':
        o.warmup = std::atoi(optarg);
        break;
      case 'g':
        o.groups = std::atoi(optarg);
        break;
      case 's':
        o.stream = optarg;
        break;
      case 'h':
        o.h2d = optarg;
        break;
      case 'H':
        o.h2d_bytes = std::strtoull(optarg, nullptr, 10);
        break;
      case 'y':
        o.sync = optarg;
        break;
      case 'c':
        o.comm = optarg;
        break;
      default:
        Usage("bad option");
    }
  }
  if (o.iters < 1 || o.groups < 1 || o.warmup < 0) Usage("--iters and --groups must be >= 1, --warmup >= 0");
  if (o.bytes % sizeof(float) != 0) Usage("--bytes must be a multiple of 4 (f32)");
  if (!OneOf(o.stream, {"dedicated", "per-thread", "legacy-default"})) Usage("bad --stream");
  if (!OneOf(o.h2d, {"none", "pageable", "pinned"})) Usage("bad --h2d");
  if (!OneOf(o.sync, {"stream", "event", "device", "none"})) Usage("bad --sync");
  if (!OneOf(o.comm, {"blocking", "nonblocking"})) Usage("bad --comm");
  if (o.h2d_bytes == 0) o.h2d_bytes = o.bytes;
  return o;
}

struct GroupResult {
  std::vector<double> host_us;
  std::vector<float> device_us;
  double loop_s = 0;  // timed loop including the final wait, as nccl-tests measures
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

void RunGroup(const Options& o, int group, int devices, const ncclUniqueId& id, GroupResult* out) {
  CUDA_OR_DIE(cudaSetDevice(group % devices));
  ncclComm_t comm;
  if (o.comm == "blocking") {
    NCCL_OR_DIE(ncclCommInitRank(&comm, 1, id, 0));
  } else {
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclResult_t r = ncclCommInitRankConfig(&comm, 1, id, 0, &config);
    while (r == ncclInProgress) NCCL_OR_DIE(ncclCommGetAsyncError(comm, &r));
    NCCL_OR_DIE(r);
  }
  cudaStream_t stream = cudaStreamLegacy;
  if (o.stream == "per-thread") stream = cudaStreamPerThread;
  if (o.stream == "dedicated") CUDA_OR_DIE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const size_t count = o.bytes / sizeof(float);
  void* send = nullptr;
  void* recv = nullptr;
  CUDA_OR_DIE(cudaMalloc(&send, std::max<size_t>(o.bytes, 1)));
  CUDA_OR_DIE(cudaMalloc(&recv, std::max<size_t>(o.bytes, 1)));
  CUDA_OR_DIE(cudaMemset(send, 0, o.bytes));
  void* h2d_host = nullptr;
  void* h2d_dev = nullptr;
  if (o.h2d != "none") {
    if (o.h2d == "pinned") {
      CUDA_OR_DIE(cudaMallocHost(&h2d_host, o.h2d_bytes));
    } else {
      h2d_host = std::malloc(o.h2d_bytes);
    }
    std::memset(h2d_host, 1, o.h2d_bytes);
    CUDA_OR_DIE(cudaMalloc(&h2d_dev, o.h2d_bytes));
  }
  cudaEvent_t start, end, done;
  CUDA_OR_DIE(cudaEventCreate(&start));
  CUDA_OR_DIE(cudaEventCreate(&end));
  CUDA_OR_DIE(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));

  auto iteration = [&](bool first) {
    if (o.sync == "event" && !first) CUDA_OR_DIE(cudaStreamWaitEvent(stream, done, 0));
    CUDA_OR_DIE(cudaEventRecord(start, stream));
    if (h2d_dev) CUDA_OR_DIE(cudaMemcpyAsync(h2d_dev, h2d_host, o.h2d_bytes, cudaMemcpyHostToDevice, stream));
    ncclResult_t r = ncclAllReduce(send, recv, count, ncclFloat32, ncclSum, comm, stream);
    while (r == ncclInProgress) NCCL_OR_DIE(ncclCommGetAsyncError(comm, &r));  // non-blocking communicators
    NCCL_OR_DIE(r);
    CUDA_OR_DIE(cudaEventRecord(end, stream));
    if (o.sync == "event") CUDA_OR_DIE(cudaEventRecord(done, stream));
    if (o.sync == "stream") CUDA_OR_DIE(cudaStreamSynchronize(stream));
    if (o.sync == "device") CUDA_OR_DIE(cudaDeviceSynchronize());
  };
  for (int i = 0; i < o.warmup; ++i) iteration(i == 0);
  CUDA_OR_DIE(cudaStreamSynchronize(stream));

  out->host_us.reserve(static_cast<size_t>(o.iters));
  const bool host_waits = o.sync == "stream" || o.sync == "device";
  auto loop_start = std::chrono::steady_clock::now();
  for (int i = 0; i < o.iters; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    iteration(i == 0 && o.warmup == 0);
    auto t1 = std::chrono::steady_clock::now();
    out->host_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    if (host_waits) {
      float ms = 0;
      CUDA_OR_DIE(cudaEventElapsedTime(&ms, start, end));
      out->device_us.push_back(ms * 1000.0f);
    }
  }
  CUDA_OR_DIE(cudaStreamSynchronize(stream));
  out->loop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();

  cudaEventDestroy(start);
  cudaEventDestroy(end);
  cudaEventDestroy(done);
  if (h2d_dev) cudaFree(h2d_dev);
  if (o.h2d == "pinned") cudaFreeHost(h2d_host);
  if (o.h2d == "pageable") std::free(h2d_host);
  cudaFree(send);
  cudaFree(recv);
  if (o.stream == "dedicated") cudaStreamDestroy(stream);
  ncclCommDestroy(comm);
}

}  // namespace

int main(int argc, char** argv) {
  Options o = Parse(argc, argv);
  int devices = 0;
  cudaError_t err = cudaGetDeviceCount(&devices);
  if (err != cudaSuccess || devices == 0) {
    std::printf("nccl_bare_loop: skipped: no usable CUDA device: %s\n",
                err != cudaSuccess ? cudaGetErrorString(err) : "cudaGetDeviceCount returned 0");
    return 0;
  }
  int nccl_version = 0;
  ncclGetVersion(&nccl_version);

  // One-rank communicators: each group gets its own unique id, as each commbench group does.
  std::vector<ncclUniqueId> ids(static_cast<size_t>(o.groups));
  for (auto& id : ids) NCCL_OR_DIE(ncclGetUniqueId(&id));
  std::vector<GroupResult> results(static_cast<size_t>(o.groups));
  std::vector<std::thread> threads;
  for (int g = 0; g < o.groups; ++g) {
    threads.emplace_back([&, g] { RunGroup(o, g, devices, ids[g], &results[g]); });
  }
  for (auto& t : threads) t.join();

  // Per iteration, the max across groups (what commbench's time_us reports) and each group's own figures.
  std::vector<double> max_us(static_cast<size_t>(o.iters), 0);
  for (const auto& r : results) {
    for (int i = 0; i < o.iters; ++i) max_us[i] = std::max(max_us[i], r.host_us[i]);
  }
  std::printf("nccl_bare_loop: nccl %d, %d device(s); allreduce f32 sum %zu B, groups=%d stream=%s h2d=%s",
              nccl_version, devices, o.bytes, o.groups, o.stream.c_str(), o.h2d.c_str());
  if (o.h2d != "none") std::printf(":%zu", o.h2d_bytes);
  std::printf(" sync=%s comm=%s iters=%d warmup=%d\n", o.sync.c_str(), o.comm.c_str(), o.iters, o.warmup);
  double p50 = Percentile(max_us, 0.5);
  std::printf("host time per iteration (max across groups): p50 %.2f us  p95 %.2f us  mean %.2f us  algbw %.3f GB/s\n",
              p50, Percentile(max_us, 0.95), Mean(max_us), p50 > 0 ? static_cast<double>(o.bytes) / p50 / 1e3 : 0.0);
  for (int g = 0; g < o.groups; ++g) {
    const auto& r = results[g];
    std::vector<double> dev(r.device_us.begin(), r.device_us.end());
    std::printf("  group %d: host p50 %.2f us mean %.2f us; loop %.2f us/iter (total incl. final wait)", g,
                Percentile(r.host_us, 0.5), Mean(r.host_us), r.loop_s * 1e6 / o.iters);
    if (!dev.empty()) std::printf("; device p50 %.2f us", Percentile(dev, 0.5));
    std::printf("\n");
  }
  return 0;
}
