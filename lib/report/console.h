// The console view of a result, in the spirit of nccl-tests: one table per configuration and group count, then
// per size a growth line over the group counts.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace commbench {

std::string FormatTables(const nlohmann::json& result);
std::string FormatGrowth(const nlohmann::json& result);

}  // namespace commbench
