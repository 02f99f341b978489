// The diagnosis on the console, printed after the tables: the verdict, then each finding with its status,
// evidence, fix and (when suspected) the command that would confirm it; causes an A/B ruled out last.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace commbench {

// `diagnosis` is either the object lib/diagnose's Diagnose() returns or a result file that carries the same
// keys (findings, verdict, optionally fits and ruled_out).
std::string FormatFindings(const nlohmann::json& diagnosis);

}  // namespace commbench
