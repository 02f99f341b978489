// The bisection phase: each level one launch, every block of consecutive hosts a group. Per op and size:
// correctness, the block floors (a block fails only below the floor in every repeat) and the worst block's
// ceilings; at each op's largest size, Bisect's verdict: the level table, each host's blocks, the failing blocks
// no host explains, the host suspects. Then whether enough levels ran (fewer are enough once the suspect is clear).
#include <algorithm>
#include <set>

#include "lib/accept/judge/phases.h"
#include "lib/core/ranges.h"

namespace commbench::accept::judge {
namespace {

// One block of a bisection level: its host indices, in block order, and its group's figures.
struct BlockSample {
  int level = 0;
  std::vector<int> hosts;
  GroupSample sample;
};

// (level, hosts) -> the best repeat of that block.
using BestBlocks = std::map<std::pair<int, std::vector<int>>, GroupSample>;

std::vector<BlockSample> BlockSamples(const Judging& j, const Ran& ran, Collective op, uint64_t bytes) {
  std::vector<BlockSample> out;
  for (const PhaseResult* pr : ran) {
    for (const result::PointResult& pt : pr->points) {
      if (!Matches(pt, op, bytes)) continue;
      std::map<int, double> tails = GroupTails(pt);
      for (const result::GroupTime& g : pt.per_group) {
        BlockSample b;
        b.level = pr->round;
        for (const std::string& h : GroupHosts(pt, g)) {
          if (j.host_index.count(h)) b.hosts.push_back(j.host_index.at(h));
        }
        if (b.hosts.empty()) continue;
        b.sample = {GroupBusbw(pt, g), g.p50_us, tails[g.group], pt.point.group_size};
        out.push_back(std::move(b));
      }
    }
  }
  return out;
}

BestBlocks BestOf(const std::vector<BlockSample>& samples) {
  BestBlocks best;
  for (const BlockSample& b : samples) {
    auto [it, added] = best.emplace(std::make_pair(b.level, b.hosts), b.sample);
    if (!added) {
      it->second.busbw = Max({it->second.busbw, b.sample.busbw});
      it->second.p50_us = Min({it->second.p50_us, b.sample.p50_us});
      it->second.tail = Min({it->second.tail, b.sample.tail});
    }
  }
  return best;
}

// One check per bisection floor: every block's best against it, the failing ones named. Returns the highest floor
// (0: none), which Bisect fails a block below at every level.
double BlockFloorChecks(Judging& j, const std::string& what, Collective op, uint64_t bytes, const BestBlocks& best) {
  double floor_gbps = 0;
  for (const Floor& f : j.profile.floors) {
    if (f.bytes != bytes || !Applies(f.phase, f.op, Phase::kBisection, op)) continue;
    Limit l = FloorLimit(f, op, j.peaks);
    const std::string name = what + " " + FloorName(f);
    if (!l.missing.empty()) {
      j.Add(name, "", false, kNaN, kNaN, "GB/s", l.missing, ReasonKind::kMissing);
      continue;
    }
    floor_gbps = std::max(floor_gbps, l.value);
    std::string failing;
    int failed = 0;
    std::vector<double> all;
    for (const auto& [block, s] : best) {
      all.push_back(s.busbw);
      if (s.busbw >= l.value) continue;
      ++failed;
      failing += (failing.empty() ? "" : ", ") + std::string("level ") + std::to_string(block.first) + " [" +
                 BlockName(j.hosts(), block.second) + "] " + Gbps(s.busbw) + " (" + Percent(s.busbw / l.value) +
                 " of it)";
    }
    j.Add(name, "", failed == 0, Min(all), l.value, "GB/s",
          failed == 0 ? "all " + std::to_string(best.size()) + " blocks >= floor " + Gbps(l.value) + " (" + l.what +
                            "); the worst " + Gbps(Min(all))
                      : std::to_string(failed) + " of " + std::to_string(best.size()) + " blocks below the floor " +
                            Gbps(l.value) + " (" + l.what + ") in every repeat: " + failing,
          ReasonKind::kThreshold);
  }
  return floor_gbps;
}

void BlockCeilingChecks(Judging& j, const std::string& what, Collective op, uint64_t bytes, const BestBlocks& best) {
  for (const Ceiling& c : j.profile.ceilings) {
    if ((c.bytes && *c.bytes != bytes) || !Applies(c.phase, c.op, Phase::kBisection, op)) continue;
    std::vector<double> p50s, tails;
    for (const auto& [block, s] : best) {
      p50s.push_back(s.p50_us);
      tails.push_back(s.tail);
    }
    CeilingChecks(j, what + " worst block", "", c, Max(p50s), p50s.size(), Max(tails), tails.size());
  }
}

// Per host: its block at each level; a host no block of the finest cuts cleared fails (closed).
void HostBlockChecks(Judging& j, const std::string& what, const Bisection& bis) {
  const auto& H = j.hosts();
  std::set<int> suspects;
  for (const BisectSuspect& x : bis.suspects) suspects.insert(x.host);
  // Each host's blocks, level by level, from one pass (a pass over every block per host is quadratic).
  std::vector<std::vector<std::pair<const LevelVerdict*, const BlockVerdict*>>> blocks(H.size());
  for (const LevelVerdict& l : bis.levels) {
    for (const BlockVerdict& b : l.blocks) {
      for (int m : std::set<int>(b.hosts.begin(), b.hosts.end())) {
        if (m >= 0 && static_cast<size_t>(m) < H.size()) blocks[static_cast<size_t>(m)].push_back({&l, &b});
      }
    }
  }
  for (size_t h = 0; h < H.size(); ++h) {
    int ran = 0, passed = 0;
    std::string failed_with;
    for (const auto& [level, b] : blocks[h]) {
      ++ran;
      passed += !b->failed;
      if (!level->finest || !b->failed) continue;
      for (int m : b->hosts) {
        if (m != static_cast<int>(h)) failed_with += (failed_with.empty() ? "" : ", ") + H[static_cast<size_t>(m)];
      }
    }
    const bool suspect = suspects.count(static_cast<int>(h)) > 0;
    const bool cleared = h < bis.cleared.size() && bis.cleared[h];
    std::string reason = H[h] + ": its block passed at " + std::to_string(passed) + " of the " + std::to_string(ran) +
                         " level(s) it ran";
    if (suspect) {
      reason += "; a suspect";
    } else if (!cleared) {
      reason += ran == 0 ? "; in no block (fails closed)"
                         : "; no block of the finest cuts cleared it (it failed with " +
                               (failed_with.empty() ? std::string("no one") : failed_with) + "; fails closed)";
    }
    j.Add(what + " blocks", H[h], cleared && !suspect, passed, ran, "levels", reason, ReasonKind::kOutlier);
  }
}

// "<what> unexplained blocks": failing blocks that no single host explains (the first three, then a count).
void UnexplainedCheck(Judging& j, const std::string& what, const Bisection& bis) {
  std::string unexplained;
  for (size_t i = 0; i < bis.unexplained.size() && i < 3; ++i) {
    unexplained += (unexplained.empty() ? "" : "; ") + bis.unexplained[i].evidence;
  }
  if (bis.unexplained.size() > 3) unexplained += "; and " + std::to_string(bis.unexplained.size() - 3) + " more";
  j.Add(what + " unexplained blocks", "", bis.unexplained.empty(), static_cast<double>(bis.unexplained.size()), 0,
        "blocks",
        bis.unexplained.empty()
            ? "every failing block holds a suspect (or none failed)"
            : std::to_string(bis.unexplained.size()) + " failing block(s) that no single host explains: " + unexplained,
        ReasonKind::kOutlier);
}

// Localisation at an op's largest size (bandwidth-bound, where a slow host shows most): Bisect over every block,
// the level table, the per-host and unexplained-block checks, the suspects. Sets *clearly when it named suspects.
void BisectAt(Judging& j, const std::string& what, Collective op, uint64_t bytes,
              const std::vector<BlockSample>& samples, double floor_gbps, int levels_ran, bool* clearly) {
  const auto& H = j.hosts();
  std::vector<BlockResult> results;
  for (const BlockSample& b : samples) results.push_back({b.level, b.hosts, b.sample.busbw});
  BisectOptions bo;
  bo.floor_gbps = floor_gbps;
  bo.fraction_of_typical = j.profile.bisection.block_fraction;
  const Bisection bis = Bisect(H, results, bo);
  j.report.bisections.push_back({op, bytes, H, bis.levels});
  HostBlockChecks(j, what, bis);
  UnexplainedCheck(j, what, bis);
  for (const BisectSuspect& x : bis.suspects) {
    AcceptanceSuspect s;
    s.what = SuspectWhat::kHost;
    s.host = H[static_cast<size_t>(x.host)];
    s.score = x.severity;
    s.found_by.push_back({Figure::kBandwidth, op, bytes, 1 / j.profile.bisection.block_fraction});
    s.evidence.push_back("bisection phase (" + std::string(Name(op)) + " " + FormatBytes(bytes) + ", " +
                         std::to_string(levels_ran) + " level(s), a block fails below " +
                         Num(j.profile.bisection.block_fraction) + " x the typical block of its level" +
                         (floor_gbps > 0 ? " or the floor " + Gbps(floor_gbps) : std::string()) + "): " + x.evidence);
    j.AddSuspect(std::move(s));
  }
  if (!bis.suspects.empty()) {
    *clearly = bis.suspects.size() == 1 || bis.suspects[1].severity <= kClearGap * bis.suspects[0].severity;
  }
}

}  // namespace

void JudgeBisection(Judging& j, const Ran& ran) {
  CorrectnessChecks(j, Phase::kBisection, ran);
  const int planned = static_cast<int>(BisectionLevels(static_cast<int>(j.hosts().size())).size());
  std::set<int> levels;
  for (const PhaseResult* pr : ran) levels.insert(pr->round);
  const int levels_ran = static_cast<int>(levels.size());
  bool localised_clearly = false;
  for (Collective op : j.profile.ops) {
    for (uint64_t bytes : j.profile.sizes) {
      const std::string what = What(Phase::kBisection, op, bytes);
      const std::vector<BlockSample> samples = BlockSamples(j, ran, op, bytes);
      if (samples.empty()) {
        j.Add(what + " blocks", "", false, kNaN, kNaN, "", "no block was measured at " + what + " (fails closed)",
              ReasonKind::kMissing);
        continue;
      }
      const BestBlocks best = BestOf(samples);
      const double floor_gbps = BlockFloorChecks(j, what, op, bytes, best);
      BlockCeilingChecks(j, what, op, bytes, best);
      if (bytes == j.profile.sizes.back()) {
        BisectAt(j, what, op, bytes, samples, floor_gbps, levels_ran, &localised_clearly);
      }
    }
  }
  const bool ok = levels_ran >= planned || localised_clearly;
  j.Add("bisection levels", "", ok, levels_ran, planned, "levels",
        std::to_string(levels_ran) + " of the " + std::to_string(planned) + " levels ran" +
            (levels_ran >= planned ? ""
             : ok                  ? ": stopped early, the suspect was already clear"
                                   : ": too few to localise (fails closed)"),
        ReasonKind::kMissing);
}

}  // namespace commbench::accept::judge
