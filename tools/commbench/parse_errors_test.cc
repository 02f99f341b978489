#include "tools/commbench/parse_errors.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace commbench::cli {
namespace {

// An app shaped as commbench's: subcommands (one hidden), one with its own subcommands, one with a positional.
struct App {
  CLI::App app{"test"};
  std::string dtypes, dir, results;
  App() {
    app.name("commbench");
    app.require_subcommand(1);
    CLI::App* sweep = app.add_subcommand("sweep", "sweep")->group("Commands");
    sweep->add_option("--dtypes", dtypes);
    sweep->add_option("--sizes", dtypes);
    app.add_subcommand("worker", "internal")->group("");
    CLI::App* history = app.add_subcommand("history", "history")->group("Commands");
    history->require_subcommand(1);
    history->add_subcommand("add", "add")->add_option("dir", dir)->required();
    history->add_subcommand("trend", "trend");
    app.add_subcommand("report", "report")->group("Commands")->add_option("results", results)->required();
  }
  // "" when the parse succeeds, else the explained error.
  std::string Parse(std::vector<std::string> args) {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a vector back to front
    try {
      app.parse(reversed);
    } catch (const CLI::ParseError& e) {
      return ExplainParseError(app, e);
    }
    return "";
  }
};

TEST(ParseErrors, AMistypedOptionNamesTheOneMeant) {
  EXPECT_EQ(App().Parse({"sweep", "--dtype", "f64"}), "sweep: unknown option '--dtype' (did you mean --dtypes?)");
  EXPECT_EQ(App().Parse({"sweep", "--size=4"}), "sweep: unknown option '--size=4' (did you mean --sizes?)");
}

TEST(ParseErrors, AnOptionNearNothingPointsAtTheSubcommandsHelp) {
  EXPECT_EQ(App().Parse({"sweep", "--bogus-flag"}),
            "sweep: unknown option '--bogus-flag' (see commbench sweep --help)");
}

TEST(ParseErrors, AStrayArgumentIsNamed) {
  EXPECT_EQ(App().Parse({"sweep", "stray"}), "sweep: unexpected argument 'stray' (see commbench sweep --help)");
}

TEST(ParseErrors, AMissingSubcommandListsThoseAccepted) {
  EXPECT_EQ(App().Parse({"history"}), "history: a subcommand is required (accepted: add, trend)");
  EXPECT_EQ(App().Parse({}), "a subcommand is required (accepted: sweep, history, report)");
}

TEST(ParseErrors, AnUnknownSubcommandOfASubcommandIsNamed) {
  EXPECT_EQ(App().Parse({"history", "trnd"}), "history: unknown subcommand 'trnd' (accepted: add, trend)");
}

TEST(ParseErrors, AMissingPositionalNamesItsSubcommand) {
  const std::string why = App().Parse({"history", "add"});
  EXPECT_EQ(why.rfind("history add: dir is required (see commbench history add --help)", 0), 0u) << why;
}

TEST(ParseErrors, NearestOptionIsOneEditAwayOrTwoForLongNames) {
  App a;
  const CLI::App& sweep = *a.app.get_subcommand("sweep");
  EXPECT_EQ(NearestOption(sweep, "--dtypse"), "--dtypes");
  EXPECT_EQ(NearestOption(sweep, "--d"), "");
  EXPECT_EQ(NearestOption(sweep, "--size"), "--sizes");
  EXPECT_EQ(NearestOption(sweep, "--sze"), "");  // two edits, but a short name
  EXPECT_EQ(NearestOption(sweep, "--groups"), "");
  EXPECT_EQ(NearestOption(sweep, "-x"), "");
}

}  // namespace
}  // namespace commbench::cli
