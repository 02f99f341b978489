// Results are written to a temporary file beside the target and renamed over it: a reader (or a crash) never
// sees half a file, and a failed write leaves nothing behind.
#pragma once

#include <string>

#include "lib/core/status.h"

namespace commbench {

Status WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace commbench
