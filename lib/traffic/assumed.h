// What a traffic model assumes of a backend where the user does not say: the algorithm "auto" runs for each
// bucket and the transport the native schedules were chosen for, read from the backend's capabilities alone.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "lib/backend/backend.h"
#include "lib/core/types.h"

namespace commbench {
namespace traffic {

// The algorithm that runs an allreduce of `count` elements over `world` ranks: `algo` where it is not "auto";
// otherwise the native schedules' own choice (ChooseAlgorithm) for the transport assumed, Gloo's default ring, and
// "auto" for a backend modelled by the textbook (whatever it picks, the figure is the same).
std::function<std::string(size_t count)> AlgorithmFor(const BackendCapabilities& backend, const std::string& algo,
                                                      const std::string& transport, DataType dtype, int world);

// The transport the model assumed, for the step's header: `transport` ("tcp" or "shm") where the backend
// chooses its own (native), "tcp" for one that only runs TCP (native-tcp); "" where the model has none.
std::string AssumedTransport(const BackendCapabilities& backend, const std::string& transport);

}  // namespace traffic
}  // namespace commbench
