// What `--algos auto` runs: by transport, collective, message size and rank count (bench/archive.md has the
// measurements behind the thresholds).
#pragma once

#include <string>

#include "lib/backend/backend.h"

namespace commbench {
namespace native {

enum class Transport { kShm, kTcp };

std::string ChooseAlgorithm(Transport transport, const OpRequest& request, int group_size);

}  // namespace native
}  // namespace commbench
