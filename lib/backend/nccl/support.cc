#include "lib/backend/nccl/support.h"

#include "lib/cuda/plan.h"

namespace commbench::nccl {

std::vector<AlgorithmInfo> NcclAlgorithms() {
  std::vector<AlgorithmInfo> out;
  for (Collective op : AllCollectives()) {
    out.push_back({"auto", op,
                   "NCCL's own choice of algorithm and protocol (ring, tree, NVLS, CollNet); NCCL_ALGO and "
                   "NCCL_PROTO in the environment restrict it",
                   "any size"});
  }
  return out;
}

BackendCapabilities NcclCapabilities() {
  BackendCapabilities caps;
  caps.device = DeviceKind::kGpu;
  caps.transport = Transport::kDevice;
  return caps;
}

Status NcclSupports(const OpRequest& request, int group_size) {
  if (group_size < 1) return InvalidArgument("nccl: group size " + std::to_string(group_size) + " < 1");
  if (request.algo != "auto") {
    return InvalidArgument("nccl: algorithm '" + request.algo +
                           "' cannot be chosen per call (accepted: auto; NCCL_ALGO=ring|tree|... in the "
                           "environment restricts NCCL's choice)");
  }
  auto plan = cuda::MakeGpuPlan(request.gpu);
  if (!plan.ok()) return InvalidArgument("nccl: " + plan.status().message());
  return OkStatus();
}

std::string DescribeCall(const OpRequest& request, int group_size) {
  std::string out(Name(request.op));
  out += " ";
  out += Name(request.dtype);
  if (IsReduction(request.op)) {
    out += " ";
    out += Name(request.reduce);
  }
  size_t bytes = std::max(SendCount(request, group_size), RecvCount(request, group_size)) * SizeOf(request.dtype);
  out += " " + std::to_string(bytes) + " B";
  out += request.in_place ? " in-place" : " out-of-place";
  return out;
}

}  // namespace commbench::nccl
