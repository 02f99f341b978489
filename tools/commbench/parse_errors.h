// CLI11's parse errors in the words of the command that was run: which subcommand, what it accepts, and the
// option that was probably meant where a flag was mistyped.
#pragma once

#include <string>

#include "tools/commbench/cli_fwd.h"

namespace commbench::cli {

// One line without the "commbench: error: " prefix, for a ParseError raised by `app.parse`.
std::string ExplainParseError(const CLI::App& app, const CLI::ParseError& error);

// The subcommands of `app` a user may give, comma-separated (hidden ones left out); "" when none.
std::string ListedSubcommands(const CLI::App& app);

// The option of `app` whose long name is nearest `word` ("--dtype" -> "--dtypes"): one edit away, two for names of
// six letters or more; "" when none is that near.
std::string NearestOption(const CLI::App& app, const std::string& word);

}  // namespace commbench::cli
