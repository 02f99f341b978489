#include "lib/launch/worker.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "tools/commbench/commands.h"

namespace commbench::cli {

namespace {

struct WorkerOptions {
  std::string plan;
  int process = -1;
  bool process_from_env = false;
};

}  // namespace

void SetupWorker(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<WorkerOptions>();
  CLI::App* sub = app.add_subcommand("worker", "Internal: the rank entry point the driver spawns");
  sub->group("");  // not listed in --help: users never call it
  sub->add_option("--plan", options->plan, "Worker plan file written by the driver")->required();
  sub->add_option("--process", options->process, "This process's index in the launch");
  sub->add_flag("--process-from-env", options->process_from_env, "Take the index from mpirun's or srun's environment");
  sub->callback([options, exit_code] {
    int index = options->process;
    int local_index = -1;  // the process index: every process on this host
    if (options->process_from_env) {
      const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
      if (!r) r = std::getenv("PMI_RANK");
      if (!r) r = std::getenv("SLURM_PROCID");
      index = r ? std::atoi(r) : -1;
      // Across hosts the local rank (GPU choice, shm names) is the index among this host's processes.
      const char* l = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
      if (!l) l = std::getenv("MPI_LOCALRANKID");
      if (!l) l = std::getenv("SLURM_LOCALID");
      if (l) local_index = std::atoi(l);
    }
    if (index < 0) {
      std::fprintf(stderr,
                   "commbench worker: error: no process index (--process N or --process-from-env under mpirun)\n");
      *exit_code = 2;
      return;
    }
    Status s = RunWorkerProcess(options->plan, index, local_index);
    if (!s.ok()) {
      std::fprintf(stderr, "commbench worker: %s\n", s.message().c_str());
      *exit_code = s.code() == StatusCode::kInvalidArgument ? 2 : 1;
    }
  });
}

}  // namespace commbench::cli
