// The flags of sweep_flags.h added to a command; their values become a SweepSpec in to_spec.cc.
#include "tools/commbench/sweep_flags.h"

#include <CLI/CLI.hpp>
#include <limits>

namespace commbench::cli {

void AddSweepFlags(CLI::App* app, SweepFlags* f) {
  SweepSpec& s = f->spec;
  app->add_option("--backends", f->backends, "Backends: gloo, native, mpi, nccl (comma list)")->capture_default_str();
  app->add_option("--ops", f->ops, "Collectives: allreduce, allgather, reduce_scatter")->capture_default_str();
  app->add_option("--algos", f->algos,
                  "Algorithms, e.g. ring,ring_chunked,halving_doubling (gloo); names a backend lacks are skipped "
                  "for it with a note; auto lets each backend choose")
      ->capture_default_str();
  app->add_option("--dtypes", f->dtypes, "Element types: f32, f64, i32, f16, bf16")->capture_default_str();
  app->add_option("--reduce", f->reduces, "Reductions: sum, max, min, prod")->capture_default_str();
  app->add_option("--sizes", f->sizes,
                  "Message sizes in bytes (nccl-tests 'size'), suffixes K, M, G = 1024^n; lists and ranges: "
                  "400,4K,1M or 4..64M:x2 or 1K..8K:+1K")
      ->capture_default_str();
  app->add_option("--groups", f->groups, "Group counts: 1..8, 1,2,4,8, 1..16:x2")->capture_default_str();
  app->add_option("--group-size", f->group_sizes, "Ranks per group (a list is an axis too)")->capture_default_str();
  app->add_option("--in-place", f->in_place, "auto (each backend's natural placement), yes, no")->capture_default_str();
  app->add_option("--sync", f->syncs,
                  "What every iteration waits for: none, group-barrier, world-barrier (all backends); stream, "
                  "event, device (GPU backends)")
      ->capture_default_str();
  app->add_option("--concurrency", f->concurrencies,
                  "concurrent (all groups at once), sequential (groups take turns): the A/B for shared bandwidth")
      ->capture_default_str();
  app->add_option("--ranks-per-process", f->ranks_per_process, "Ranks run as threads of one process (axis)")
      ->capture_default_str();
  app->add_option("--pin", f->pins, "Rank pinning: none, compact, spread (axis)")->capture_default_str();
  app->add_option("--cpus", f->cpus,
                  "CPUs the ranks may use, e.g. 0 or 0-1 (emulates a smaller machine); repeat the flag or "
                  "separate values with ';' to sweep it");
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
  app->add_option("--target-ci", s.target_ci,
                  "Adaptive: more iterations (up to twice the budget) until the 95% CI of the median is within "
                  "this fraction of it")
      ->capture_default_str();
  app->add_option("--check-rate", s.check_rate,
                  "Share of the middle timed iterations whose output is checked, each on its own input (0..1)")
      ->capture_default_str();
  app->add_option("--min-iters", s.min_iters, "Adaptive: at least this many iterations")->capture_default_str();
  app->add_option("--max-iters", s.max_iters, "Adaptive: at most this many iterations")->capture_default_str();
  app->add_option("--sample-cap", s.sample_cap, "Raw per-iteration samples kept per rank in the JSON")
      ->capture_default_str();
  app->add_option("--repeats", s.repeats,
                  "Independent repeats: every point runs this many times, each in a fresh launch, interleaved "
                  "(repeat 1 of every point, then repeat 2, ...); compare and gate judge the per-repeat medians")
      ->capture_default_str();
  app->add_option("--timeout", s.timeout_s,
                  "Seconds a point may go without progress before the run stops and names the ranks that did not "
                  "finish")
      ->capture_default_str();
  app->add_option("--max-world", s.max_world, "Refuse worlds larger than this many ranks")->capture_default_str();
  app->add_option("--host", s.host, "Address the ranks bind and advertise (TCP transports)")->capture_default_str();
  app->add_option("--iface", s.iface, "Network interface for the TCP transports (wins over --host)");
  app->add_option("--group-by", f->group_by,
                  "How groups form across hosts (SPMD): consecutive (ranks g*k..), host (a host's ranks together), "
                  "spread (consecutive members on different hosts)")
      ->capture_default_str();
  app->add_option("--launcher", f->launcher,
                  "How ranks start: local (fork/exec), mpirun, srun (inside a Slurm allocation; the temporary "
                  "directory must be on a filesystem its nodes share)")
      ->capture_default_str();
  app->add_option("--test-only-slow-rank", s.test_only_slow_rank,
                  "TEST ONLY fault injection, off by default: RANK:MICROSECONDS adds a sleep to every iteration "
                  "of that rank");
  app->add_option("--test-only-hang-rank", s.test_only_hang_rank,
                  "TEST ONLY fault injection, off by default: RANK:ITER stops that rank for good before its timed "
                  "iteration ITER (1-based) of each point");
  app->add_option("--test-only-uniform-slowdown", s.test_only_uniform_slowdown,
                  "TEST ONLY fault injection, off by default: FRACTION (e.g. 0.05) makes every rank spin that "
                  "fraction of each op's measured time more, inside the clock: a planted uniform slowdown");
}

void AddSpmdFlags(CLI::App* app, SpmdFlags* f) {
  app->add_option("--rendezvous", f->rendezvous,
                  "Under a launcher (srun, mpirun, torchrun): where the ranks meet, file:/shared/dir or "
                  "redis://[:PASSWORD@]HOST[:PORT][/DB] (password also from $COMMBENCH_REDIS_PASSWORD)");
  // -1 stands for "not given": a typed negative value must be refused, not read as absent.
  app->add_option("--rank", f->rank, "This process's rank (overrides the launcher's variables)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  app->add_option("--world", f->world, "The number of rank processes (overrides the launcher's variables)")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  app->add_option("--run-id", f->run_id,
                  "Names this run's keys in the rendezvous store (default: the launcher's job id, e.g. "
                  "SLURM_JOB_ID.SLURM_STEP_ID)");
}

void AddOutputFlags(CLI::App* app, OutputFlags* f) {
  app->add_option("--out,-o", f->out, "Result JSON (written atomically)")->capture_default_str();
  app->add_option("--html", f->html, "Also write the self-contained HTML report here");
  app->add_flag("--quiet,-q", f->quiet, "No progress lines");
  app->add_flag("--explain", f->explain,
                "After the sweep, run the A/B points of each cause its diagnosis suspects, for the series it names "
                "(e.g. sync none beside world-barrier, one core beside all), and diagnose again");
}

}  // namespace commbench::cli
