// The flags of sweep_flags.h added to a command; their values become a SweepSpec in to_spec.cc.
#include "tools/commbench/sweep_flags.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <limits>

#include "lib/backend/backend.h"
#include "lib/core/types.h"

namespace commbench::cli {

void AddSweepFlags(CLI::App* app, SweepFlags* f) {
  SweepSpec& s = f->spec;
  app->add_option("--backends", f->backends, "Backends: " + RegisteredBackendList() + " (comma list)")
      ->capture_default_str();
  app->add_option("--ops", f->ops, "Collectives: " + NameList(AllCollectives()))->capture_default_str();
  app->add_option("--algos", f->algos,
                  "Algorithms, e.g. ring,halving_doubling; auto: each backend's choice; names it lacks are skipped")
      ->capture_default_str();
  app->add_option("--dtypes", f->dtypes, "Element types: " + NameList(AllDataTypes()))->capture_default_str();
  app->add_option("--reduce", f->reduces, "Reductions: " + NameList(AllReduceOps()))->capture_default_str();
  app->add_option("--sizes", f->sizes,
                  "Message sizes in bytes (K, M, G = 1024^n): 400,4K,1M or 4..64M:x2 or 1K..8K:+1K")
      ->capture_default_str();
  app->add_option("--groups", f->groups, "Group counts: 1..8, 1,2,4,8, 1..16:x2")->capture_default_str();
  app->add_option("--group-size", f->group_sizes, "Ranks per group (a list is an axis too)")->capture_default_str();
  app->add_option("--in-place", f->in_place, "auto (each backend's natural placement), yes, no")->capture_default_str();
  app->add_option("--sync", f->syncs,
                  "What each iteration waits for: none, group-barrier, world-barrier; GPU: stream, event, device")
      ->capture_default_str();
  app->add_option("--concurrency", f->concurrencies,
                  "concurrent (all groups at once) or sequential (groups take turns): the shared-bandwidth A/B")
      ->capture_default_str();
  app->add_option("--ranks-per-process", f->ranks_per_process, "Ranks run as threads of one process (axis)")
      ->capture_default_str();
  app->add_option("--pin", f->pins, "Rank pinning: none, compact, spread (axis)")->capture_default_str();
  app->add_option("--cpus", f->cpus,
                  "CPUs the ranks may use, e.g. 0 or 0-1 (a smaller machine); repeat or separate with ';' to sweep");
  app->add_option("--stream", f->streams, "GPU: legacy-default, per-thread, dedicated (axis)")->capture_default_str();
  app->add_option("--h2d", f->h2ds, "GPU: per-iteration host-to-device input copy: none, pageable, pinned (axis)")
      ->capture_default_str();
  app->add_option("--h2d-bytes", f->h2d_bytes, "GPU: bytes of that copy (0: the message size)")->capture_default_str();
  app->add_option("--graph", f->graphs, "GPU: capture the timed loop in a CUDA graph: off, on (axis)")
      ->capture_default_str();
  app->add_option("--iters", s.iters, "Timed iterations per point; 0 = adaptive (time budget and CI target)")
      ->capture_default_str();
  app->add_option("--warmup", s.warmup, "Warm-up iterations per point")->capture_default_str();
  app->add_option("--time-budget", s.time_budget_s, "Adaptive: seconds of timed loop per point")->capture_default_str();
  app->add_option(
      "--time-budget-above", f->time_budget_above,
      "Adaptive: SIZE=SECONDS (comma list), a longer loop for points of at least SIZE bytes, e.g. 256K=0.4");
  app->add_option("--target-ci", s.target_ci,
                  "Adaptive: iterate (up to twice the budget) until the median's 95% CI is within this fraction")
      ->capture_default_str();
  app->add_option("--check-rate", s.check_rate,
                  "Share of the middle timed iterations whose output is checked, each on its own input (0..1)")
      ->capture_default_str();
  app->add_option("--min-iters", s.min_iters, "Adaptive: at least this many iterations")->capture_default_str();
  app->add_option("--max-iters", s.max_iters, "Adaptive: at most this many iterations")->capture_default_str();
  app->add_option("--sample-cap", s.sample_cap, "Raw per-iteration samples kept per rank in the JSON")
      ->capture_default_str();
  app->add_option("--repeats", s.repeats,
                  "Independent repeats of every point, each in a fresh launch, interleaved (docs/gate.md)")
      ->capture_default_str();
  app->add_option("--timeout", s.timeout_s,
                  "Seconds a point may go without progress before the run stops and names the stuck ranks")
      ->capture_default_str();
  app->add_option("--max-world", s.max_world, "Refuse worlds larger than this many ranks")->capture_default_str();
  app->add_option("--host", s.host, "Address the ranks bind and advertise (TCP transports)")->capture_default_str();
  app->add_option("--iface", s.iface, "Network interface for the TCP transports (wins over --host)");
  app->add_option("--group-by", f->group_by,
                  "SPMD: how groups form across hosts: consecutive, host or spread (docs/sweep.md)")
      ->capture_default_str();
  app->add_option("--launcher", f->launcher, "How ranks start: local (fork/exec), mpirun, srun (docs/sweep.md)")
      ->capture_default_str();
  app->add_option("--test-only-slow-rank", s.test_only_slow_rank,
                  "TEST ONLY fault: RANK:MICROSECONDS adds a sleep to every iteration of that rank");
  app->add_option("--test-only-late-rank", s.test_only_late_rank,
                  "TEST ONLY fault: RANK:MICROSECONDS makes that rank sleep before every iteration, outside the clock");
  app->add_option("--test-only-hang-rank", s.test_only_hang_rank,
                  "TEST ONLY fault: RANK:ITER stops that rank for good before its timed iteration ITER (1-based)");
  app->add_option("--test-only-uniform-slowdown", s.test_only_uniform_slowdown,
                  "TEST ONLY fault: every rank spins FRACTION (e.g. 0.05) of each op's time more, inside the clock");
}

void AddSpmdFlags(CLI::App* app, SpmdFlags* f) {
  app->add_option("--rendezvous", f->rendezvous,
                  "SPMD: where the ranks meet, file:/shared/dir or redis://[:PASSWORD@]HOST[:PORT][/DB] "
                  "(docs/sweep.md)");
  // -1 stands for "not given": a typed negative value must be refused, not read as absent.
  app->add_option("--rank", f->rank, "This process's rank (overrides the launcher's variables)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  app->add_option("--world", f->world, "The number of rank processes (overrides the launcher's variables)")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  app->add_option("--run-id", f->run_id,
                  "SPMD: names this run's keys in the rendezvous store (default: the launcher's job id)");
}

void AddOutputFlags(CLI::App* app, OutputFlags* f, bool first_run) {
  app->add_option("--out,-o", f->out, "Result JSON (written atomically)")->capture_default_str();
  if (!first_run) {
    app->add_option("--html", f->html, "Also write the self-contained HTML report here");
    app->add_flag("--quiet,-q", f->quiet, "No progress lines");
    app->add_flag("--explain", f->explain,
                  "Then run the A/Bs of each cause the diagnosis suspects, and diagnose again (docs/sweep.md)");
    return;
  }
  CLI::Option* html =
      app->add_option("--html", f->html, "The HTML report (default: commbench-report.html beside --out)");
  app->add_flag("--no-html", f->no_html, "Write no HTML report")->excludes(html);
  app->add_flag("--quiet,-q", f->quiet, "No progress lines");
  CLI::Option* explain = app->add_flag(
      "--explain", f->explain, "Run the targeted A/Bs (the default): about 1.6x a plain sweep's time (docs/sweep.md)");
  app->add_flag("--no-explain", f->no_explain, "Skip the targeted A/Bs: only the requested points")->excludes(explain);
}

void ApplyFirstRunDefaults(OutputFlags* f) {
  f->explain = f->explain || !f->no_explain;
  if (f->html.empty() && !f->no_html) {
    const std::filesystem::path dir = std::filesystem::path(f->out).parent_path();
    f->html = (dir / kDefaultHtmlName).string();
  }
}

}  // namespace commbench::cli
