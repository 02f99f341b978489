// A sequential gate's bookkeeping, apart from running anything (docs/gate.md, "Sequential repeats"): when to look,
// each point's looks so far and its boundary at the next (sequential.h), which points are decided and stop costing
// time, and the disturbed repeats each point had. The runner (lib/app/gate_run.h) adds the repeats; the final
// comparison judges every point at its last look.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lib/gate/compare.h"
#include "lib/gate/sequential.h"
#include "lib/result/result_file.h"

namespace commbench::gate {

struct LookSchedule {
  int64_t planned = 40;     // the most repeats a side (--repeats): information fraction 1
  int64_t first_look = 10;  // the first look, in repeats a side
  int64_t look_every = 10;  // then every so many
  bool base_grows = true;   // --ab: both sides grow; --baseline: the stored side is fixed
  bool stop_early = true;   // false (--update-baseline): every repeat runs, one look at the end
};

// Whether `n` repeats a side (the growing side's) is a look of `s`.
bool IsLook(const LookSchedule& s, int64_t n);

// "B repeat 3: outside processes took 36% of the ranks' CPUs (re-run)": a disturbed repeat, for a reader.
std::string Describe(const RepeatRecord& r);

class SequentialGate {
 public:
  SequentialGate(CompareOptions options, LookSchedule schedule);

  // A look at every point still undecided, with the repeats of `base` and `now` so far: each gets its boundary
  // for this look, and the points decided (or with a wrong result) stop.
  // `final_rounds`: the rounds the job is now expected to end with (the budget's; 0: the planned repeats), where
  // --min-effect auto projects each point's resolution.
  void Look(const result::ResultFile& base, const result::ResultFile& now, int64_t final_rounds = 0);
  bool Decided(const std::string& id) const { return decided_.count(id) > 0; }
  // The host's move so far (a gate against a stored baseline), for this look and the next.
  void SetHost(const HostShift& host) { options_.host = host; }
  // Records a disturbed repeat of a point; `replaced` when it is re-run rather than judged.
  void NoteDisturbed(const std::string& id, bool replaced, const std::string& what);
  // Records one repeat of a point, disturbed or not (a disturbed one also as NoteDisturbed, named by Describe).
  void NoteRepeat(const std::string& id, const RepeatRecord& r);
  // The disturbed repeats of this point so far, re-run or not.
  int Disturbed(const std::string& id) const;

  // Every point at its last look, with the run's figures; an undecided point's resolution at the repeats it has.
  Comparison Final(const result::ResultFile& base, const result::ResultFile& now, const SequentialRun& run) const;

 private:
  CompareOptions options_;
  LookSchedule schedule_;
  std::map<std::string, std::vector<gate::Look>> looks_;
  std::set<std::string> decided_;
};

}  // namespace commbench::gate
