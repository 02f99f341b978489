#include "lib/traffic/assumed.h"

#include "lib/backend/native/algorithm_choice.h"

namespace commbench {
namespace traffic {

std::function<std::string(size_t)> AlgorithmFor(const BackendCapabilities& backend, const std::string& algo,
                                                const std::string& transport, DataType dtype, int world) {
  if (algo != "auto") return [algo](size_t) { return algo; };
  if (backend.traffic_model == TrafficModel::kGlooAlgorithms) return [](size_t) { return std::string("ring"); };
  if (backend.traffic_model != TrafficModel::kNativeSchedules) return [](size_t) { return std::string("auto"); };
  const bool shm = AssumedTransport(backend, transport) == "shm";
  const auto native_transport = shm ? native::Transport::kShm : native::Transport::kTcp;
  return [native_transport, dtype, world](size_t count) {
    OpRequest request;
    request.op = Collective::kAllreduce;
    request.dtype = dtype;
    request.count = count;
    return native::ChooseAlgorithm(native_transport, request, world);
  };
}

std::string AssumedTransport(const BackendCapabilities& backend, const std::string& transport) {
  if (backend.traffic_model != TrafficModel::kNativeSchedules) return "";
  return backend.transport == Transport::kTcp ? "tcp" : transport;
}

}  // namespace traffic
}  // namespace commbench
