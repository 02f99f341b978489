// `commbench gate`: the CI performance-regression gate (docs/design.md §7, issue 13).
//   gate --baseline BASE.json   runs the sweep BASE records (its spec, repeats included) and compares the result
//                               with BASE (lib/gate); --update-baseline then writes the new result over BASE.
//   gate --ab --a K=V --b K=V   runs variant A and variant B alternately in this job (A B A B ..., one repeat
//                               of every point each time, fresh launches), the variants being environment
//                               assignments for the rank processes, and compares B against A.
// Exit codes as `compare`: 0 no regression, 1 a regression or a wrong result, 2 bad input, 3 inconclusive or
// incomparable. Every input is checked, and every output path, before any rank starts. The modes: gate_modes.cc,
// gate_calibrate.cc, gate_history.cc (their shared rounds: gate_rounds.cc).
#include "tools/commbench/gate.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/atomic_file.h"
#include "lib/core/output_paths.h"
#include "lib/core/store_dir.h"
#include "lib/result/result_writer.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/commands.h"
#include "tools/commbench/comparison_outputs.h"
#include "tools/commbench/config_flags.h"
#include "tools/commbench/export_flags.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {
namespace {

int RunGate(GateOptions o) {
  Status floors = ApplyComparisonFlags(o.flags, &o.compare);
  if (!floors.ok()) return ErrorExit(floors.message());
  if (!o.history.empty() && (o.ab || !o.baseline.empty())) {
    return ErrorExit("--history DIR is the baseline: it takes no " + std::string(o.ab ? "--ab" : "--baseline") +
                     " (accepted: one of --baseline FILE, --history DIR, --ab)");
  }
  if (!o.history.empty() && o.update_baseline) {
    return ErrorExit("--update-baseline needs --baseline (a --history DIR grows with `commbench history add`)");
  }
  if (o.history.empty() && o.ab == !o.baseline.empty()) {
    return ErrorExit(
        o.ab ? "--ab compares two variants in this job: it takes no --baseline"
             : "nothing to compare with (accepted: --baseline FILE, --history DIR, or --ab --a K=V --b K=V)");
  }
  if (!o.ab && (!o.a.empty() || !o.b.empty())) return ErrorExit("--a and --b need --ab");
  if (o.ab && o.update_baseline) return ErrorExit("--update-baseline needs --baseline (--ab keeps no baseline)");
  if (!o.ab && !o.out_a.empty()) return ErrorExit("--out-a needs --ab (it is variant A's result)");
  Status writable = CheckGateOutputs(o);
  if (!writable.ok()) return ErrorExit(writable.message());
  auto given = ToSpec(o.sweep);
  if (!given.ok()) return ErrorExit(given.status().message());
  if (!o.history.empty()) return RunHistoryGate(o, *given);
  return o.ab ? RunAbGate(o, *given) : RunBaselineGate(o, *given);
}

}  // namespace

void SetupGate(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<GateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gate",
      "CI regression gate: run the sweep a baseline records and compare (or --ab: two variants alternately in "
      "this job). Exit 0 no regression, 1 regression or wrong result, 2 bad input, 3 inconclusive or "
      "incomparable.");
  cmd->footer(
      "Examples:\n"
      "  commbench gate --baseline baseline.json --junit gate.xml --json gate.json --html gate.html\n"
      "  commbench gate --baseline baseline.json --update-baseline        # refresh it (same runner type!)\n"
      "  commbench gate --history hist/ --json gate.json    # against main's runs since the last change point\n"
      "  commbench gate --baseline baseline.json --config configs/gate/ci.yaml --update-baseline  # first one\n"
      "  commbench gate --ab --a NCCL_ALGO=Ring --b NCCL_ALGO=Tree --config configs/gate/gpu.yaml\n"
      "  commbench gate --ab --a LD_LIBRARY_PATH=old/ --b LD_LIBRARY_PATH=new/ --groups 1,2 --repeats 6");
  cmd->add_option("--baseline", o->baseline,
                  "the baseline result JSON (from sweep --repeats, or gate --update-baseline)");
  cmd->add_option("--history", o->history,
                  "judge against this history directory's runs since each point's last change (docs/history.md)");
  cmd->add_flag("--update-baseline", o->update_baseline,
                "write a complete, correct result over the baseline, or make one if absent (docs/gate.md)");
  cmd->add_flag("--ab", o->ab, "run variants A and B alternately in this job (A B A B ...) and compare B against A");
  cmd->add_option("--a", o->a, "variant A: NAME=VALUE[,NAME=VALUE...] for the rank processes");
  cmd->add_option("--b", o->b, "variant B: NAME=VALUE[,NAME=VALUE...] for the rank processes");
  cmd->add_option("--out,-o", o->out, "the new result (B with --ab), without raw samples")->capture_default_str();
  cmd->add_option("--out-a", o->out_a, "--ab: also write variant A's result here (without raw samples)");
  AddComparisonFlags(cmd, &o->flags);
  AddExportFlags(cmd, &o->exports);
  cmd->add_flag("--quiet,-q", o->quiet, "No progress lines");
  cmd->add_option("--budget", o->budget_s,
                  "wall-clock seconds for rounds of repeats until each point is decided (0: none; docs/gate.md)");
  cmd->add_option("--first-look", o->first_look, "the first look at the repeats, in repeats a side")
      ->capture_default_str();
  cmd->add_option("--look-every", o->look_every, "then a look every so many repeats a side")->capture_default_str();
  cmd->add_option("--rerun-disturbed", o->rerun_disturbed,
                  "re-run a repeat disturbed by other work on the ranks' CPUs, at most this often (docs/gate.md)")
      ->capture_default_str();
  cmd->add_flag("--calibrate", o->calibrate,
                "measure this runner's noise first (A/A rounds) and keep it in the --baseline (docs/gate.md)");
  AddSweepFlags(cmd, &o->sweep);
  cmd->add_option("--config", o->config,
                  "YAML or JSON file of these flags (keys are flag names without dashes); the command line wins");
  cmd->callback([o, exit_code, cmd] {
    if (!o->config.empty()) {
      ConfigScope scope;
      scope.own_section = true;
      scope.section_flags = {"baseline",
                             "update-baseline",
                             "ab",
                             "a",
                             "b",
                             "out",
                             "out-a",
                             "json",
                             "junit",
                             "html",
                             "summary",
                             "min-effect",
                             "min-effect-below",
                             "allow-env-drift",
                             "quiet",
                             "prom",
                             "csv",
                             "csv-repeats",
                             "csv-samples",
                             "trace"};
      for (const char* f : {"budget", "first-look", "look-every", "rerun-disturbed"}) scope.section_flags.insert(f);
      scope.section_flags.insert("history");  // gate --history (gate_history.cc)
      const std::vector<std::string> problems = ApplyConfigFile(o->config, cmd, scope);
      for (const std::string& p : problems) std::fprintf(stderr, "commbench: error: %s\n", ScrubSecrets(p).c_str());
      if (!problems.empty()) {
        *exit_code = 2;
        return;
      }
    }
    *exit_code = RunGate(*o);
  });
}

}  // namespace commbench::cli
