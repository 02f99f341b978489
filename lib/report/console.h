// The console view of a result, in the spirit of nccl-tests: one table per configuration and group count, then
// per size a growth line over the group counts.
#pragma once

#include <string>

#include "lib/result/result_file.h"

namespace commbench {

std::string FormatTables(const std::vector<result::PointResult>& points);
std::string FormatGrowth(const std::vector<result::Fit>& fits);

}  // namespace commbench
