#include "tools/commbench/spmd_sweep.h"

#include <cstdio>
#include <cstdlib>

#include "lib/launch/own_address.h"
#include "lib/launch/spmd.h"
#include "lib/launch/worker.h"
#include "lib/rendezvous/redis_store.h"
#include "lib/rendezvous/run_store.h"
#include "tools/commbench/command_line.h"
#include "tools/commbench/execute.h"

namespace commbench::cli {
namespace {

int Fail(const std::string& who, const Status& status, int code) { return ErrorExit(who + status.message(), code); }

// The address peers on other hosts reach this rank on (own_address.h).
StatusOr<std::string> TransportAddress(const SweepSpec& spec, const std::string& rendezvous) {
  if (!spec.iface.empty()) return InterfaceAddress(spec.iface);
  if (rendezvous.rfind("redis://", 0) == 0) {
    auto redis = ParseRedisUrl(rendezvous, nullptr);
    if (redis.ok()) {
      const std::string towards = AddressTowards(redis->host);
      // A Redis on this host's loopback says nothing about the way to the others.
      if (!towards.empty() && towards.rfind("127.", 0) != 0) return towards;
    }
  }
  return FirstNonLoopbackAddress();
}

// Leaves at once, without unwinding: a rank thread may still be blocked in a collective whose peer died.
[[noreturn]] void ExitNow(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

}  // namespace

StatusOr<std::optional<LaunchPlace>> SpmdPlace(const SpmdFlags& flags, const SweepSpec& spec) {
  if (spec.launcher != Launcher::kLocal) {  // this process is the driver, and starts the ranks itself
    // The SPMD flags describe ranks that someone else started: beside --launcher they would be ignored.
    if (!flags.rendezvous.empty() || flags.rank >= 0 || flags.world >= 0) {
      return InvalidArgument(std::string(!flags.rendezvous.empty() ? "--rendezvous " + RedactStoreUrl(flags.rendezvous)
                                                                   : "--rank/--world") +
                             " with --launcher " + std::string(Name(spec.launcher)) +
                             ": the driver starts the ranks and keeps their store itself (accepted: --launcher, or "
                             "--rendezvous with ranks started by srun, mpirun or torchrun, not both)");
    }
    return std::optional<LaunchPlace>();
  }
  PlaceOverrides overrides;
  if (flags.rank >= 0) overrides.rank = flags.rank;
  if (flags.world >= 0) overrides.world = flags.world;
  auto place = DetectLaunchPlace(ProcessEnv(), overrides);
  if (!place.ok()) {
    if (place.status().code() != StatusCode::kNotFound) return place.status();
    // --rendezvous says the ranks were started by a launcher: without a place, running the driver's own local
    // sweep instead would pass for the cluster run that was asked for.
    if (!flags.rendezvous.empty()) {
      return InvalidArgument("--rendezvous " + RedactStoreUrl(flags.rendezvous) +
                             " needs this process's place: " + place.status().message() +
                             " (accepted: run under srun, mpirun or torchrun, or give --rank and --world)");
    }
    return std::optional<LaunchPlace>();
  }
  if (place->world <= 1 && flags.rendezvous.empty()) return std::optional<LaunchPlace>();  // one rank: the driver
  return std::optional<LaunchPlace>(*place);
}

void RunAsSpmdRank(const SweepSpec& spec, const SpmdFlags& flags, const LaunchPlace& place, bool quiet,
                   const std::string& problem, const Rank0Work& work) {
  const std::string me = "rank " + std::to_string(place.rank) + ": ";
  if (flags.rendezvous.empty()) {
    const std::string note = TorchStoreNote(ProcessEnv(), false);
    ExitNow(Fail(
        me,
        InvalidArgument(!note.empty() ? note
                                      : "started by " + place.source + " as one of " + std::to_string(place.world) +
                                            " ranks, with no --rendezvous (accepted: file:/shared/dir, "
                                            "redis://HOST:PORT)"),
        2));
  }
  const std::string run_id = flags.run_id.empty() ? RunIdFromEnv(ProcessEnv()) : flags.run_id;
  if (run_id.empty()) {
    ExitNow(Fail(me,
                 InvalidArgument("no --run-id, and the launcher sets no job id (SLURM_JOB_ID, TORCHELASTIC_RUN_ID, "
                                 "OMPI_MCA_ess_base_jobid, PMIX_NAMESPACE, MASTER_ADDR/PORT): give every rank the "
                                 "same --run-id so that runs sharing a store never mix"),
                 2));
  }
  auto address = TransportAddress(spec, flags.rendezvous);
  if (!address.ok()) ExitNow(Fail(me, address.status(), 2));
  const auto connect = std::chrono::milliseconds(static_cast<int64_t>(std::min(spec.timeout_s, 30.0) * 1000));
  auto control = OpenRunStore(flags.rendezvous, run_id, connect);
  if (!control.ok()) {
    ExitNow(Fail(me, control.status(), control.status().code() == StatusCode::kInvalidArgument ? 2 : 3));
  }
  std::unique_ptr<RunStore> rank_store;  // rank 0's own rank talks to the store beside its collector
  if (place.rank == 0) {
    auto second = OpenRunStore(flags.rendezvous, run_id, connect);
    if (!second.ok()) ExitNow(Fail(me, second.status(), 3));
    rank_store = std::move(*second);
  }

  SpmdOptions options;
  options.place = place;
  options.address = *address;
  options.host_name = HostName();
  options.timeout_s = spec.timeout_s;
  options.problem = problem;
  // Never destroyed: a rank thread blocked in a collective may still use it when the process _Exits.
  auto* session = new SpmdSession(options, control->get(), rank_store ? rank_store.get() : control->get());
  Status arrived = session->Arrive();
  if (!arrived.ok()) {
    if (place.rank == 0) (void)(*control)->Remove();
    ExitNow(Fail(me, arrived, 3));
  }
  if (place.rank != 0) {
    Status followed = session->Follow();
    session->RemoveScratch();
    ExitNow(followed.ok() ? 0 : Fail(me, followed, 1));
  }
  if (!quiet) {
    std::fprintf(stderr, "commbench: SPMD: %d ranks from %s meet at %s\n", place.world, place.source.c_str(),
                 (*control)->Describe().c_str());
  }
  std::string failure;
  const int code = work(*session, &failure);
  session->Finish(failure);
  session->RemoveScratch();
  ExitNow(code);
}

int ExecuteSpmdSweep(const SweepSpec& spec, const OutputFlags& outputs, const SpmdFlags& flags,
                     const LaunchPlace& place, const std::string& command) {
  RunAsSpmdRank(spec, flags, place, outputs.quiet, "", [&](SpmdSession& session, std::string* failure) {
    SweepHooks hooks;
    hooks.fit_plan = [&place](Plan* plan, std::vector<std::string>* notes) {
      return FitPlanToWorld(place.world, plan, notes);
    };
    hooks.run_plan = [&session](const Plan& plan, const DriverOptions& d) { return session.RunPlan(plan, d); };
    hooks.failure = failure;
    return ExecuteSweep(spec, outputs, command, hooks);
  });
}

}  // namespace commbench::cli
