#include "lib/backend/native/cpu_features.h"

namespace commbench {
namespace native {
namespace internal {

std::atomic<bool> force_portable_kernels{false};

}  // namespace internal
}  // namespace native
}  // namespace commbench
