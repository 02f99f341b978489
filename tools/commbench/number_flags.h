// Strict reading of every numeric flag. CLI11 2.1 reads integers with strtoll(text, 0): a value past the type's
// range saturates to the largest one, "-1" wraps to a huge unsigned, and "010" reads as octal 8; a float past the
// double range reads as inf. Each would run, silently, something other than what was typed.
#pragma once

#include "tools/commbench/cli_fwd.h"

namespace commbench::cli {

// Puts a check in front of every integer and floating-point option of `app` and its subcommands: integers must be
// decimal and within int64 (unsigned ones not negative), leading zeros are dropped ("010" is 10); floating-point
// values must be finite. A bad value fails the parse with "--flag: invalid value 'TEXT' (accepted: ...)".
void RequireWellFormedNumbers(CLI::App* app);

}  // namespace commbench::cli
