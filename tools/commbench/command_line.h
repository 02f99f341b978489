// The command line as typed, quoted where needed, for the result file and the report. main() remembers it.
#pragma once

#include <string>
#include <vector>

#include "lib/result/result_file.h"

namespace commbench::cli {

std::string CommandLine(int argc, char** argv);
std::string CommandLine(const std::vector<std::string>& args);  // the arguments after the program name
void RememberInvocation(int argc, char** argv);
const std::string& Invocation();
// `message` as an error line may show it: store passwords masked (lib/core/redact.h), and whatever
// RememberInvocation masked in the command line, wherever the message quotes it.
std::string ScrubSecrets(const std::string& message);
// This binary's name, version and commit, as every result file records them.
result::ToolInfo ToolIdentity();
// The one error line of a failed command ("commbench: error: MESSAGE" on stderr); returns `exit_code`.
int ErrorExit(const std::string& message, int exit_code = 2);
// The same for a message of several problems, one per line (a profile's): each line gets the prefix.
int ErrorLines(const std::string& message, int exit_code);
// Whether anything is at `path` (a dangling link too).
bool PathExists(const std::string& path);

}  // namespace commbench::cli
