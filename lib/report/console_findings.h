// The diagnosis on the console, printed after the tables: the verdict, then each finding with its status,
// evidence, fix and (when suspected) the command that would confirm it; causes an A/B ruled out last.
#pragma once

#include <string>

#include "lib/result/diagnosis.h"

namespace commbench {

std::string FormatFindings(const result::Diagnosis& diagnosis);

}  // namespace commbench
