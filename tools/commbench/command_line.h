// The command line as typed, quoted where needed, for the result file and the report. main() remembers it.
#pragma once

#include <string>

namespace commbench::cli {

std::string CommandLine(int argc, char** argv);
void RememberInvocation(int argc, char** argv);
const std::string& Invocation();

}  // namespace commbench::cli
