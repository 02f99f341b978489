#include "lib/gate/sequential_gate.h"

#include <algorithm>

namespace commbench::gate {
namespace {

// At most this many disturbances are named per point (the count is always whole).
constexpr size_t kNamedDisturbances = 5;

std::map<std::string, int> RepeatCounts(const result::ResultFile& file) {
  std::map<std::string, int> n;
  for (const result::PointResult& p : file.points) n[p.id] += static_cast<int>(result::RepeatMedians(p).size());
  return n;
}

}  // namespace

bool IsLook(const LookSchedule& s, int64_t n) {
  if (n <= 0) return false;
  if (!s.stop_early) return n >= s.planned;
  if (n >= s.planned) return true;
  return n >= s.first_look && (n - s.first_look) % std::max<int64_t>(s.look_every, 1) == 0;
}

SequentialGate::SequentialGate(CompareOptions options, LookSchedule schedule)
    : options_(std::move(options)), schedule_(schedule) {}

void SequentialGate::Look(const result::ResultFile& base, const result::ResultFile& now, int64_t final_rounds) {
  const std::map<std::string, int> nb = RepeatCounts(base), nn = RepeatCounts(now);
  for (const auto& [id, n_now] : nn) {
    if (Decided(id)) continue;
    auto b = nb.find(id);
    const int n_base = b == nb.end() ? 0 : b->second;
    std::vector<gate::Look>& looks = looks_[id];
    if (!looks.empty() && looks.back().base == n_base && looks.back().now == n_now) continue;  // nothing new
    looks.push_back({n_base, n_now});
    const gate::Look planned{schedule_.base_grows ? static_cast<int>(schedule_.planned) : n_base,
                             static_cast<int>(schedule_.planned)};
    const Boundary boundary = LastLookBoundary(options_.decision.alpha, looks, planned);
    SequentialPoint& s = options_.sequential[id];
    s.looks = static_cast<int>(looks.size());
    s.boundary_p = boundary.p;
    s.spent_alpha = boundary.spent;
    const double full = Information(planned.base, planned.now);
    s.information = full > 0 ? std::min(1.0, Information(n_base, n_now) / full) : 0;
    const int64_t final_now =
        std::max<int64_t>(n_now, final_rounds > 0 ? std::min(final_rounds, schedule_.planned) : schedule_.planned);
    s.final_now = final_now;
    s.final_base = schedule_.base_grows ? std::max<int64_t>(n_base, final_now) : n_base;
  }
  const Comparison c = Compare(base, now, options_);
  for (const PointComparison& p : c.points) {
    if (Decided(p.id) || !options_.sequential.count(p.id)) continue;
    const bool decided = p.wrong_result || (p.problem.empty() && p.decision.change != Change::kInconclusive);
    if (decided && schedule_.stop_early) {
      decided_.insert(p.id);
      options_.sequential[p.id].stopped = true;
    }
  }
}

void SequentialGate::NoteDisturbed(const std::string& id, bool replaced, const std::string& what) {
  SequentialPoint& s = options_.sequential[id];
  ++s.disturbed;
  s.replaced += replaced;
  if (s.disturbances.size() < kNamedDisturbances) s.disturbances.push_back(what);
}

std::string Describe(const RepeatRecord& r) {
  return r.side + " repeat " + std::to_string(r.round) + ": " + r.why +
         (r.replaced ? " (re-run)" : " (judged: the re-run bound was reached)");
}

void SequentialGate::NoteRepeat(const std::string& id, const RepeatRecord& r) {
  options_.sequential[id].repeats.push_back(r);
  if (r.disturbed) NoteDisturbed(id, r.replaced, Describe(r));
}

int SequentialGate::Disturbed(const std::string& id) const {
  auto it = options_.sequential.find(id);
  return it == options_.sequential.end() ? 0 : it->second.disturbed;
}

Comparison SequentialGate::Final(const result::ResultFile& base, const result::ResultFile& now,
                                 const SequentialRun& run) const {
  CompareOptions options = options_;
  options.sequential_run = run;
  const std::map<std::string, int> nb = RepeatCounts(base), nn = RepeatCounts(now);
  for (auto& [id, s] : options.sequential) {
    if (Decided(id)) continue;  // judged where it stopped, at that look's projection
    auto b = nb.find(id), n = nn.find(id);
    s.final_base = b == nb.end() ? 0 : b->second;
    s.final_now = n == nn.end() ? 0 : n->second;
  }
  return Compare(base, now, options);
}

}  // namespace commbench::gate
