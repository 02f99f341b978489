// `commbench history add DIR RESULT.json` and `commbench history check DIR` (docs/history.md): the performance
// history CI keeps as an artifact, and its change points per series. check exits 0 no recent slowdown, 1 a
// slowdown beyond the floor that starts in the last K runs, 2 bad input, 3 a series too short to say or a recent
// slowdown its runs cannot tell yet (too few runs to tell).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/atomic_file.h"
#include "lib/core/output_paths.h"
#include "lib/core/printable.h"
#include "lib/history/check.h"
#include "lib/history/store.h"
#include "lib/history/trend_html.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/commands.h"
#include "tools/commbench/comparison_outputs.h"
#include "tools/commbench/config_flags.h"

namespace commbench::cli {
namespace {

struct AddOptions {
  std::string dir;
  history::AddRequest request;
};

struct CheckFlags {
  std::string dir;
  std::string config;         // --config FILE: the flags' values (configs/history/ci.yaml); the command line wins
  ComparisonOutputs outputs;  // json, junit, html, summary
  history::CheckOptions check;
};

int Fail(const std::string& message) { return ErrorExit(message); }

int RunAdd(const AddOptions& o) {
  Status apart = history::CheckOutsideHistory(o.dir, o.request.result_path);
  if (!apart.ok()) return Fail(apart.message());
  auto entry = history::AddRun(o.dir, o.request);
  if (!entry.ok()) return Fail(entry.status().message());
  // The path, commit and runner come from flags and the result file: one escaped line each.
  std::printf("filed %s as %s (commit %s, %s, runner %s: %s)\n", Printable(o.request.result_path).c_str(),
              Printable(entry->id).c_str(), Printable(entry->commit).c_str(), Printable(entry->time).c_str(),
              Printable(entry->fingerprint).c_str(), Printable(entry->runner).c_str());
  return 0;
}

Status CheckFlagValues(const CheckFlags& f) {
  RETURN_IF_ERROR(history::ValidateCheckOptions(f.check));
  // The check's outputs never land in the history it reads (--json DIR/history.json would destroy the index).
  RETURN_IF_ERROR(CheckOutputsApart({{"--json", f.outputs.json},
                                     {"--junit", f.outputs.junit},
                                     {"--html", f.outputs.html},
                                     {"--summary", f.outputs.summary}},
                                    {{"the history", f.dir}}, {{"the history", f.dir}}));
  return CheckComparisonOutputs(f.outputs);
}

int RunCheck(const CheckFlags& f) {
  Status ok = CheckFlagValues(f);
  if (!ok.ok()) return Fail(ok.message());
  auto r = history::CheckHistory(f.dir, f.check);
  if (!r.ok()) return Fail(r.status().message());
  std::fputs(history::CheckToText(*r).c_str(), stdout);
  std::fflush(stdout);
  Status s = OkStatus();
  if (!f.outputs.json.empty())
    s = WriteFileAtomically(
        f.outputs.json, history::CheckToJson(*r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (s.ok() && !f.outputs.junit.empty()) s = WriteFileAtomically(f.outputs.junit, history::CheckToJunit(*r));
  if (s.ok() && !f.outputs.html.empty()) s = history::WriteTrendHtml(*r, f.outputs.html);
  if (s.ok()) s = AppendSummaries(f.outputs.summary, history::CheckToMarkdown(*r));
  if (!s.ok()) return Fail(s.message());
  return r->ExitCode();
}

void SetupAdd(CLI::App* history_cmd, int* exit_code) {
  auto o = std::make_shared<AddOptions>();
  CLI::App* cmd = history_cmd->add_subcommand(
      "add", "File a result (sweep --repeats or gate --out) in the history directory DIR (created when absent).");
  cmd->add_option("dir", o->dir, "the history directory")->required();
  cmd->add_option("result", o->request.result_path, "the result JSON to file")->required();
  cmd->add_option("--commit", o->request.commit, "the commit it measured (default: the result's tool.commit)");
  cmd->add_option("--time", o->request.time, "when it ran, ISO 8601 (default: the result's started_at)");
  cmd->callback([o, exit_code] { *exit_code = RunAdd(*o); });
}

void SetupCheck(CLI::App* history_cmd, int* exit_code) {
  auto f = std::make_shared<CheckFlags>();
  CLI::App* cmd = history_cmd->add_subcommand(
      "check",
      "Change points per series of the history: exit 0 no recent slowdown, 1 a slowdown beyond the floor starting "
      "in the last K runs, 2 bad input, 3 a series too short to say or a slowdown too few runs can tell yet.");
  cmd->add_option("dir", f->dir, "the history directory")->required();
  cmd->add_option("--json", f->outputs.json, "write the series, change points and levels as JSON");
  cmd->add_option("--junit", f->outputs.junit, "write JUnit XML (one testcase per series)");
  cmd->add_option("--html", f->outputs.html, "write the trend page: one self-contained HTML file");
  cmd->add_option("--summary", f->outputs.summary, "append a markdown summary (also to $GITHUB_STEP_SUMMARY when set)");
  cmd->add_option("--recent-runs,--last", f->check.last, "K: a slowdown starting in the last K runs fails")
      ->capture_default_str();
  cmd->add_option("--floor,--min-effect", f->check.min_effect, "smallest relative slowdown that fails")
      ->capture_default_str();
  cmd->add_option("--alpha", f->check.change_points.alpha,
                  "p-value a change point needs (permutation test; Student's t where too few runs)")
      ->capture_default_str();
  cmd->add_option("--permutations", f->check.change_points.permutations, "permutations per test")
      ->capture_default_str();
  cmd->add_option("--min-segment", f->check.change_points.min_segment, "runs on each side of a change, at least")
      ->capture_default_str();
  cmd->add_option("--min-runs", f->check.min_runs, "a shorter series is too short to say (exit 3)")
      ->capture_default_str();
  cmd->add_option("--window", f->check.window,
                  "read only the last N runs of each runner (0: all); the work grows with N (docs/history.md)")
      ->capture_default_str();
  cmd->add_option("--config", f->config,
                  "YAML or JSON file of these flags (configs/history/ci.yaml); the command line wins");
  cmd->callback([f, exit_code, cmd] {
    const std::vector<std::string> problems =
        f->config.empty() ? std::vector<std::string>{} : ApplyConfigFile(f->config, cmd);
    for (const std::string& p : problems)
      std::fprintf(stderr, "commbench: error: %s\n", Printable(ScrubSecrets(p)).c_str());
    *exit_code = problems.empty() ? RunCheck(*f) : 2;
  });
}

}  // namespace

void SetupHistory(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "history", "Performance history of main: `add DIR RESULT.json` files a result, `check DIR` finds change points.");
  cmd->require_subcommand(1);
  SetupAdd(cmd, exit_code);
  SetupCheck(cmd, exit_code);
}

}  // namespace commbench::cli
