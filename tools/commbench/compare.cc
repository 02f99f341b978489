// `commbench compare BASE.json NEW.json`: the new result against a baseline, point by point, from each point's
// independent repeats (lib/gate). Exit codes: 0 no regression, 1 a regression or a wrong result, 2 bad input,
// 3 inconclusive or incomparable. Every output path is checked before anything is read or written.
#include "lib/gate/compare.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "lib/core/atomic_file.h"
#include "lib/gate/outputs.h"
#include "lib/result/result_file.h"
#include "tools/commbench/commands.h"

namespace commbench::cli {
namespace {

struct CompareOptions {
  std::string base, now;
  std::string json_out, junit, summary;
  gate::CompareOptions compare;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "commbench compare: error: %s\n", message.c_str());
  return 2;
}

Status AppendTo(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::app);
  out << text;
  out.close();
  return out ? OkStatus() : Unavailable("cannot append to " + path);
}

int RunCompare(const CompareOptions& o) {
  if (!(o.compare.decision.min_effect > 0 && o.compare.decision.min_effect < 1)) {
    return Fail("--min-effect " + std::to_string(o.compare.decision.min_effect) + " (accepted: a fraction in (0, 1))");
  }
  for (const std::string* out : {&o.json_out, &o.junit}) {
    if (out->empty()) continue;
    Status s = CheckWritableOutput(*out);
    if (!s.ok()) return Fail(s.message());
  }
  auto base = result::LoadResultFile(o.base);
  if (!base.ok()) return Fail(base.status().message());
  auto now = result::LoadResultFile(o.now);
  if (!now.ok()) return Fail(now.status().message());

  const gate::Comparison c = gate::Compare(*base, *now, o.compare);
  std::fputs(gate::ComparisonToText(c).c_str(), stdout);
  if (!o.json_out.empty()) {
    Status s = WriteFileAtomically(o.json_out, gate::ComparisonToJson(c, o.base, o.now).dump(2) + "\n");
    if (!s.ok()) return Fail(s.message());
  }
  if (!o.junit.empty()) {
    Status s = WriteFileAtomically(o.junit, gate::ComparisonToJunit(c));
    if (!s.ok()) return Fail(s.message());
  }
  const std::string markdown = gate::ComparisonToMarkdown(c);
  for (const std::string& path : {o.summary, std::string(std::getenv("GITHUB_STEP_SUMMARY") ?: "")}) {
    if (path.empty()) continue;
    Status s = AppendTo(path, markdown);
    if (!s.ok()) std::fprintf(stderr, "commbench compare: %s\n", s.message().c_str());
  }
  return c.ExitCode();
}

}  // namespace

void SetupCompare(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare a result against a baseline point by point from their repeats (sweep --repeats): exit 0 no "
      "regression, 1 regression or wrong result, 2 bad input, 3 inconclusive or incomparable.");
  cmd->add_option("base", o->base, "the baseline result JSON")->required();
  cmd->add_option("new", o->now, "the new result JSON")->required();
  cmd->add_option("--json", o->json_out, "write the comparison as JSON");
  cmd->add_option("--junit", o->junit, "write JUnit XML (one testcase per point)");
  cmd->add_option("--summary", o->summary, "append a markdown summary (also to $GITHUB_STEP_SUMMARY when set)");
  cmd->add_option("--min-effect", o->compare.decision.min_effect,
                  "smallest relative change that counts as slower or faster (default 0.05)");
  cmd->add_flag("--allow-env-drift", o->compare.allow_env_drift,
                "compare even when CPU, cores, versions or NCCL_/GLOO_/CUDA_/OMP_ variables differ");
  cmd->callback([o, exit_code] { *exit_code = RunCompare(*o); });
}

}  // namespace commbench::cli
