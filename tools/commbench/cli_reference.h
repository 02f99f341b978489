// The command-line reference (docs/cli.md) printed from the CLI11 apps themselves, so that it cannot drift from
// what --help says: `commbench help --markdown`, checked by //tools/commbench:cli_reference_test.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace commbench::cli {

// Markdown: the top-level description, then one section per listed subcommand (nested ones included, hidden ones
// such as `worker` left out) with its description, a table of its positionals and options (names, type, default,
// description) and its footer (examples, exit codes).
std::string CliReferenceMarkdown(const CLI::App& app);

}  // namespace commbench::cli
