// How long the calling thread was ready to run but had no CPU (it sat on a run queue): the second field of
// /proc/thread-self/schedstat, run_delay in ns. Where a rank's threads do not outnumber its cores, that time went to
// other tasks (processes, kernel threads, the harness), however brief: the host-load monitor's 10 ms ticks miss
// bursts of a few ms, and a rank pinned beside one cannot move away from it.
// Also how often the calling thread moved between CPUs: se.nr_migrations in /proc/thread-self/sched. A thread
// allowed one CPU cannot move unless something changes its affinity (or takes its CPU offline).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace commbench {

// Seconds, or nullopt where the kernel does not provide the file (no CONFIG_SCHED_INFO) or it does not parse.
std::optional<double> ThreadRunQueueWaitS();

// "<on-cpu ns> <run_delay ns> <timeslices>" -> run_delay in seconds.
std::optional<double> ParseSchedstatRunDelayS(const std::string& text);

// The calling thread's CPU migrations since it started, or nullopt where the kernel does not provide the file
// (no CONFIG_SCHED_DEBUG) or the field.
std::optional<int64_t> ThreadMigrations();

// /proc/<pid>/sched's text -> its "se.nr_migrations : N" line's N.
std::optional<int64_t> ParseSchedNrMigrations(const std::string& text);

}  // namespace commbench
