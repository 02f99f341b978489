// `commbench help [--markdown]`: the top-level help, or the whole reference as markdown (docs/cli.md).
#include <cstdio>

#include "tools/commbench/cli_reference.h"
#include "tools/commbench/commands.h"

namespace commbench::cli {

void SetupHelp(CLI::App& app, int* exit_code) {
  auto markdown = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("help", "Print this help, or with --markdown every command's flags (docs/cli.md)");
  sub->add_flag("--markdown", *markdown, "Every subcommand and flag as markdown: the reference docs/cli.md");
  // The parent app outlives parsing: main owns it.
  sub->callback([&app, markdown, exit_code] {
    // Not app.help(): during parsing it would print the selected subcommand's, this one's.
    const std::string text = *markdown
                                 ? CliReferenceMarkdown(app)
                                 : app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
    *exit_code = 0;
  });
}

}  // namespace commbench::cli
