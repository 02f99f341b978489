// `commbench traffic --params N --dtype bf16 --bucket 25M --world W [--backend B] [--algo A] [--transport T]`:
// what one data-parallel step sends and receives per rank: the gradients in DDP buckets, each allreduced with the
// backend's algorithm for its size, summed from the traffic models (lib/traffic; docs/result-format.md, "Traffic").
// `--measure` also runs the bucket sizes as a sweep and prints what was measured beside it (traffic_measure.h), also
// as ranks that a launcher started (traffic_spmd.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "lib/backend/backend.h"
#include "lib/core/ranges.h"
#include "lib/core/types.h"
#include "lib/traffic/assumed.h"
#include "lib/traffic/step.h"
#include "lib/traffic/step_text.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/commands.h"
#include "tools/commbench/traffic_measure.h"
#include "tools/commbench/traffic_spmd.h"

namespace commbench::cli {
namespace {

struct TrafficFlags {
  std::string params;
  std::string dtype = "bf16";
  std::string bucket = "25M";
  int world = 0;
  std::string backend = "native";
  std::string algo = "auto";
  std::string transport = "tcp";
  bool measure = false;
  MeasureRequest run;          // --measure's settings
  SpmdFlags spmd;              // --measure under a launcher: --rendezvous, --run-id, --rank
  bool measure_flags = false;  // one of them was given
};

int RunTraffic(const TrafficFlags& f) {
  auto params = traffic::ParseParamCount(f.params, "--params");
  if (!params.ok()) return ErrorExit(params.status().message());
  auto dtype = ParseDataType(f.dtype);
  if (!dtype.ok()) return ErrorExit("--dtype: " + dtype.status().message());
  auto bucket = ParseByteSize(f.bucket, "--bucket");
  if (!bucket.ok()) return ErrorExit(bucket.status().message());
  if (f.world < 1 || f.world > 65536) {
    return ErrorExit("--world " + std::to_string(f.world) + " (accepted: a rank count from 1 to 65536)");
  }
  auto backend = CapabilitiesOf(f.backend);
  if (!backend.ok()) return ErrorExit("--backend '" + f.backend + "' (accepted: " + RegisteredBackendList() + ")");
  if (f.transport != "tcp" && f.transport != "shm") {
    return ErrorExit("--transport '" + f.transport + "' (accepted: tcp, shm)");
  }
  if (f.measure_flags && !f.measure) {
    return ErrorExit("--launcher, --time-budget, --host, --out, --rendezvous, --run-id and --rank need --measure");
  }
  traffic::StepRequest request;
  request.backend = f.backend;
  request.model = backend->traffic_model;
  request.params = *params;
  request.element_size = SizeOf(*dtype);
  request.bucket_bytes = *bucket;
  request.world = f.world;
  request.algo_for = traffic::AlgorithmFor(*backend, f.algo, f.transport, *dtype, f.world);
  auto step = traffic::ModelStep(request);
  if (!step.ok()) return ErrorExit(f.algo == "auto" ? step.status().message() : "--algo: " + step.status().message());
  MeasureRequest run = f.run;
  run.backend = f.backend;
  run.transport = f.transport;
  run.dtype = f.dtype;
  std::optional<PlannedMeasure> planned;
  std::optional<LaunchPlace> place;  // nullopt: this process starts the ranks
  SpmdFlags spmd = f.spmd;
  if (f.measure) {
    auto p = PlanMeasure(request, *step, run);
    if (!p.ok()) return ErrorExit(p.status().message());
    planned = std::move(*p);
    auto where = LauncherPlace(&spmd, f.world, &*planned);
    if (!where.ok()) return ErrorExit(where.status().message());
    place = *where;
  }
  traffic::StepLabel label{f.dtype, traffic::AssumedTransport(*backend, f.transport)};
  const std::string model = traffic::StepToText(request, *step, label);
  if (place) MeasureAsLauncherRank(spmd, *place, model, request, *step, run, *planned);
  std::fputs(model.c_str(), stdout);
  if (!f.measure) return 0;
  std::fflush(stdout);
  return RunMeasure(request, *step, run, *planned);
}

}  // namespace

void SetupTraffic(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<TrafficFlags>();
  CLI::App* cmd = app.add_subcommand(
      "traffic",
      "Bytes each rank sends and receives in one data-parallel step: gradient buckets allreduced with the "
      "backend's algorithm, from the traffic models.");
  cmd->add_option("--params", f->params, "parameter count: 1300000000, 1.3B, 350M")->required();
  cmd->add_option("--dtype", f->dtype, "gradient type: f32, f16, bf16, f64, i32")->capture_default_str();
  cmd->add_option("--bucket", f->bucket, "DDP bucket size (bucket_cap_mb): 25M, 4MiB")->capture_default_str();
  cmd->add_option("--world", f->world, "data-parallel ranks")->required();
  cmd->add_option("--backend", f->backend,
                  "a registered backend (commbench env); one without a traffic model of its own: the textbook "
                  "ring")
      ->capture_default_str();
  cmd->add_option("--algo", f->algo, "allreduce algorithm; auto: what the backend picks per bucket size")
      ->capture_default_str();
  cmd->add_option("--transport", f->transport, "native only: what auto assumes, tcp (across hosts) or shm")
      ->capture_default_str();
  cmd->add_flag("--measure", f->measure,
                "also run the bucket sizes as a sweep and print measured bytes and time beside the model");
  CLI::Option* options[] = {
      cmd->add_option("--launcher", f->run.launcher, "--measure: how ranks start: local, mpirun, srun")
          ->capture_default_str(),
      cmd->add_option("--time-budget", f->run.time_budget_s, "--measure: seconds of timed loop per bucket size")
          ->capture_default_str(),
      cmd->add_option("--host", f->run.host, "--measure: address the ranks bind (TCP transports)"),
      cmd->add_option("--out,-o", f->run.out, "--measure: keep the sweep's result file here"),
      cmd->add_option("--rendezvous", f->spmd.rendezvous,
                      "--measure under srun, mpirun or torchrun: where the ranks meet (file:DIR or redis://HOST:PORT)"),
      cmd->add_option("--run-id", f->spmd.run_id,
                      "--measure with --rendezvous: names the run's keys (default: the launcher's job id)"),
      cmd->add_option("--rank", f->spmd.rank,
                      "--measure with --rendezvous: this process's rank, for ranks started by hand (of --world)"),
  };
  cmd->callback([f, exit_code, options] {
    for (CLI::Option* o : options) f->measure_flags = f->measure_flags || o->count() > 0;
    *exit_code = RunTraffic(*f);
  });
}

}  // namespace commbench::cli
