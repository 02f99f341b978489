#include "tools/commbench/parse_errors.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <vector>

namespace commbench::cli {
namespace {

// The subcommand the parse reached ("commbench history add"): the one whose flags the arguments were read against.
const CLI::App* Deepest(const CLI::App& app) {
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  return at;
}

// "history add" (the program's own name left out: the error line starts with it), "" at the top.
std::string PathOf(const CLI::App* app) {
  std::string path;
  for (const CLI::App* at = app; at->get_parent() != nullptr; at = at->get_parent()) {
    path = at->get_name() + (path.empty() ? "" : " " + path);
  }
  return path;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string ListedSubcommands(const CLI::App& app) {
  std::string listed;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_group().empty()) continue;  // hidden (the ranks' own "worker")
    listed += (listed.empty() ? "" : ", ") + sub->get_name();
  }
  return listed;
}

std::string NearestOption(const CLI::App& app, const std::string& word) {
  const std::string name = word.substr(0, word.find('='));
  if (name.rfind("--", 0) != 0 || name.size() < 4) return "";
  std::string best;
  // One edit away, two for names of six letters or more: "--nope" is not a typo of "--ops".
  size_t best_distance = name.size() - 2 >= 6 ? 3 : 2;
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& lname : opt->get_lnames()) {
      const std::string candidate = "--" + lname;
      const size_t d = EditDistance(name, candidate);
      if (d < best_distance) {
        best = candidate;
        best_distance = d;
      }
    }
  }
  return best;
}

std::string ExplainParseError(const CLI::App& app, const CLI::ParseError& error) {
  const CLI::App* at = Deepest(app);
  const std::string path = PathOf(at);
  const std::string where = path.empty() ? "" : path + ": ";
  const std::string help = " (see " + app.get_name() + (path.empty() ? "" : " " + path) + " --help)";
  const std::vector<std::string> extras = at->remaining();
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    const auto flag =
        std::find_if(extras.begin(), extras.end(), [](const std::string& a) { return a.rfind("-", 0) == 0; });
    if (flag != extras.end()) {
      const std::string near = NearestOption(*at, *flag);
      return where + "unknown option '" + *flag + "'" + (near.empty() ? help : " (did you mean " + near + "?)");
    }
    if (!extras.empty()) return where + "unexpected argument '" + extras.front() + "'" + help;
  }
  const std::string listed = ListedSubcommands(*at);
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr && !listed.empty() && at->get_subcommands().empty()) {
    const std::string what = error.what();
    if (what.find("subcommand") != std::string::npos) {
      const bool named = !extras.empty() && extras.front().rfind("-", 0) != 0;
      return where + (named ? "unknown subcommand '" + extras.front() + "'" : "a subcommand is required") +
             " (accepted: " + listed + ")";
    }
  }
  return where + error.what() + help;
}

}  // namespace commbench::cli
