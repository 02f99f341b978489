#include "lib/launch/rank_watch.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace commbench {
namespace {

std::string ThisHost() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

// From the fields after "(comm) " of /proc/PID/stat: state ppid pgrp session tty_nr tpgid flags ...
bool Exiting(const std::string& fields) {
  constexpr unsigned long kPfExiting = 0x4;  // PF_EXITING, include/linux/sched.h
  std::istringstream in(fields);
  std::string field;
  for (int i = 0; i < 7 && in >> field; ++i) {
    if (i == 6) return (std::strtoul(field.c_str(), nullptr, 10) & kPfExiting) != 0;
  }
  return false;
}

bool Halted(const RankView& v) { return v.state == RankProcessState::kStopped || v.state == RankProcessState::kGone; }

}  // namespace

RankProcessState ProcessStateOf(pid_t pid, const std::string& host) {
  if (pid <= 0 || host != ThisHost()) return RankProcessState::kUnknown;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return RankProcessState::kGone;
  return StateOfStatLine(line);
}

RankProcessState StateOfStatLine(const std::string& line) {
  // "pid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'.
  const size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return RankProcessState::kUnknown;
  // A SIGKILLed process closes its sockets while it exits, before it is a zombie: its peers' collectives fail at
  // once, and on a busy host its state still reads running then. The kernel's exiting flag says it is going.
  if (Exiting(line.substr(close + 2))) return RankProcessState::kGone;
  switch (line[close + 2]) {
    case 'T':
    case 't':
      return RankProcessState::kStopped;
    case 'Z':
    case 'X':
      return RankProcessState::kGone;
    default:
      return RankProcessState::kRunning;
  }
}

std::vector<RankView> StoppedFirstViews(const std::vector<RankView>& late) {
  std::vector<RankView> halted;
  for (const RankView& v : late) {
    if (Halted(v)) halted.push_back(v);
  }
  // Every halted process is named, least far in first. Iterations compare only within a group: a SIGKILLed rank
  // of one group and a rank of another that left on the same fault before its word arrived were both gone, and
  // the one fewer iterations into its own group was named alone, the killed one "waited" (a loaded host).
  if (halted.size() > 1) {
    std::stable_sort(halted.begin(), halted.end(),
                     [](const RankView& a, const RankView& b) { return LessFarIn(a.progress, b.progress); });
    return halted;
  }
  const std::vector<RankView>& candidates = halted.empty() ? late : halted;
  std::vector<ProgressSnapshot> snapshots;
  for (const RankView& v : candidates) snapshots.push_back(v.progress);
  std::vector<RankView> first;
  for (const ProgressSnapshot& s : StoppedFirst(snapshots)) {
    for (const RankView& v : candidates) {
      if (v.progress.rank == s.rank) first.push_back(v);
    }
  }
  return first;
}

std::string DescribePhase(const ProgressSnapshot& s) {
  if (s.phase == ProgressPhase::kWarmup || s.phase == ProgressPhase::kTimed) {
    return ", last completed " + std::string(Name(s.phase)) + " iteration " + std::to_string(s.completed) +
           " (iteration " + std::to_string(s.completed + 1) + (s.started > s.completed ? " begun" : " not begun") + ")";
  }
  return s.phase == ProgressPhase::kSetup ? ", setting up" : ", after its timed loop";
}

std::string DescribeWhere(const RankView& view) {
  if (view.progress.pid == 0) return "";
  return ", host " + view.progress.host + DescribePhase(view.progress);
}

RankWatch::RankWatch(std::string progress_dir, int world, Clock::time_point start)
    : dir_(std::move(progress_dir)), ranks_(static_cast<size_t>(world)) {
  for (Rank& r : ranks_) r.changed = start;
}

bool RankWatch::Poll(Clock::time_point now) {
  bool any = false;
  for (size_t r = 0; r < ranks_.size(); ++r) {
    auto page = ReadProgress(ProgressPath(dir_, static_cast<int>(r)));
    if (!page.ok() || SameProgress(*page, ranks_[r].last)) continue;
    ranks_[r].last = *page;
    ranks_[r].changed = now;
    any = true;
  }
  return any;
}

void RankWatch::NoteGone() {
  for (size_t r = 0; r < ranks_.size(); ++r) {
    Rank& rank = ranks_[r];
    if (rank.gone || rank.last.pid == 0) continue;
    if (ProcessStateOf(rank.last.pid, rank.last.host) == RankProcessState::kGone) {
      rank.gone = true;
      gone_.push_back(static_cast<int>(r));
    }
  }
}

int RankWatch::FirstGoneWithoutAWord() const {
  for (int r : gone_) {
    if (!ranks_[static_cast<size_t>(r)].last.failed) return r;
  }
  return -1;
}

bool RankWatch::AnySaidItFailed(int first, int last) const {
  for (int r = std::max(first, 0); r <= last && r < static_cast<int>(ranks_.size()); ++r) {
    if (ranks_[static_cast<size_t>(r)].last.failed) return true;
  }
  return false;
}

bool RankWatch::AnyStuckInsideAnOp(Clock::time_point now, std::chrono::duration<double> limit) const {
  for (const Rank& r : ranks_) {
    if (InsideAnOp(r.last) && now - r.changed > limit) return true;
  }
  return false;
}

RankView RankWatch::View(int rank, Clock::time_point now) const {
  const Rank& r = ranks_[static_cast<size_t>(rank)];
  RankView view;
  view.progress = r.last;
  view.progress.rank = rank;
  view.state = r.gone ? RankProcessState::kGone : ProcessStateOf(r.last.pid, r.last.host);
  view.idle_s = std::chrono::duration<double>(now - r.changed).count();
  return view;
}

}  // namespace commbench
