#include "lib/accept/bisect.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace commbench::accept {
namespace {

std::string Gbps(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g GB/s", v);
  return buf;
}

std::string Percent(double v) { return std::to_string(static_cast<int>(std::lround(100 * v))) + "%"; }

// The typical block of a level: the upper median, so that with two blocks a slow half is judged against the fast
// one, not against the average it drags down itself.
double UpperMedian(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::string LevelName(const LevelVerdict& l, bool shifted) {
  return "level " + std::to_string(l.level) + (shifted ? " (shifted)" : "");
}

}  // namespace

std::string BlockName(const std::vector<std::string>& names, const std::vector<int>& hosts) {
  auto name = [&names](int h) {
    return h >= 0 && h < static_cast<int>(names.size()) ? names[static_cast<size_t>(h)] : std::to_string(h);
  };
  if (hosts.size() > 3) {
    return name(hosts.front()) + " .. " + name(hosts.back()) + " (" + std::to_string(hosts.size()) + " hosts)";
  }
  std::string s;
  for (int h : hosts) s += (s.empty() ? "" : ", ") + name(h);
  return s;
}

std::vector<BisectLevel> BisectionLevels(int hosts) {
  std::vector<BisectLevel> out;
  if (hosts < 4) return out;
  auto cut = [hosts](int level, int block, int first, bool shifted) {
    BisectLevel l;
    l.level = level;
    l.block_hosts = block;
    l.shifted = shifted;
    const int blocks = hosts / block;
    for (int i = 0; i < blocks; ++i) {
      std::vector<int> b;
      for (int j = 0; j < block; ++j) b.push_back((first + i * block + j) % hosts);
      l.blocks.push_back(b);
    }
    for (int j = blocks * block; j < hosts; ++j) l.idle.push_back((first + j) % hosts);
    return l;
  };
  int first = 0;
  for (int block = hosts / 2;; block = std::max(2, block / 2)) {
    out.push_back(cut(static_cast<int>(out.size()) + 1, block, first, false));
    if (block == 2) break;
    first = (first + (hosts / block) * block) % hosts;  // the next cut starts at the first host left over
  }
  // The finest cut again, moved by half a block (at least past the hosts it left over, so that none of them sits
  // out both): each host's block mates of one cut are in other blocks of the other.
  const int block = out.back().block_hosts;
  const int shift = std::max(block / 2, static_cast<int>(out.back().idle.size()));
  out.push_back(cut(static_cast<int>(out.size()) + 1, block, (first + shift) % hosts, true));
  // Run order: the two finest cuts first, then the coarser levels from the finest up.
  std::reverse(out.begin(), out.end() - 2);
  std::rotate(out.begin(), out.end() - 2, out.end());
  return out;
}

namespace {

using BlocksByLevel = std::map<int, std::map<std::vector<int>, BlockVerdict>>;

// The best repeat per block, by level; results naming no host or a host out of range are left out.
BlocksByLevel BestBlocks(int n, const std::vector<BlockResult>& results) {
  BlocksByLevel by_level;
  for (const BlockResult& r : results) {
    if (r.hosts.empty() || !std::isfinite(r.busbw_gbps)) continue;
    if (std::any_of(r.hosts.begin(), r.hosts.end(), [n](int h) { return h < 0 || h >= n; })) continue;
    std::vector<int> key = r.hosts;
    std::sort(key.begin(), key.end());
    BlockVerdict& b = by_level[r.level][key];
    if (b.hosts.empty()) {
      b.hosts = r.hosts;
      b.gbps = r.busbw_gbps;
    } else {
      b.gbps = std::max(b.gbps, r.busbw_gbps);
    }
  }
  return by_level;
}

// Each level's blocks against its typical block and the floor; the levels of the smallest blocks are the finest.
std::vector<LevelVerdict> JudgeLevels(int n, const BlocksByLevel& by_level, const BisectOptions& options) {
  std::vector<LevelVerdict> levels;
  size_t finest = SIZE_MAX;
  for (const auto& [level, blocks] : by_level) {
    LevelVerdict l;
    l.level = level;
    std::vector<double> gbps;
    std::vector<bool> in_block(static_cast<size_t>(n), false);
    for (const auto& [key, b] : blocks) {
      l.blocks.push_back(b);
      gbps.push_back(b.gbps);
      for (int h : key) in_block[static_cast<size_t>(h)] = true;
    }
    l.block_hosts = static_cast<int>(l.blocks.front().hosts.size());
    l.typical_gbps = UpperMedian(gbps);
    l.threshold_gbps = std::max(options.fraction_of_typical * l.typical_gbps, options.floor_gbps);
    for (BlockVerdict& b : l.blocks) b.failed = b.gbps < l.threshold_gbps;
    for (int h = 0; h < n; ++h) {
      if (!in_block[static_cast<size_t>(h)]) l.idle.push_back(h);
    }
    finest = std::min(finest, static_cast<size_t>(l.block_hosts));
    levels.push_back(std::move(l));
  }
  for (LevelVerdict& l : levels) l.finest = static_cast<size_t>(l.block_hosts) == finest;
  return levels;
}

// The hosts named, and for each named host the uncleared block mates it is tied with.
struct Named {
  std::set<int> hosts;
  std::map<int, std::set<int>> ties;
  bool Has(int h) const { return hosts.count(h) > 0; }
};

// A failing finest block with one uncleared host names it; one with several names them all, tied, unless a host
// named by another block already explains it. With nothing cleared the slowdown is everywhere: no one is named.
Named NameHosts(const Bisection& out, bool any_cleared) {
  Named named;
  if (!any_cleared) return named;
  auto uncleared = [&out](const BlockVerdict& b) {
    std::vector<int> u;
    for (int h : b.hosts) {
      if (!out.cleared[static_cast<size_t>(h)]) u.push_back(h);
    }
    return u;
  };
  for (const LevelVerdict& l : out.levels) {
    for (const BlockVerdict& b : l.blocks) {
      if (l.finest && b.failed && uncleared(b).size() == 1) named.hosts.insert(uncleared(b).front());
    }
  }
  for (const LevelVerdict& l : out.levels) {
    for (const BlockVerdict& b : l.blocks) {
      if (!l.finest || !b.failed) continue;
      const std::vector<int> u = uncleared(b);
      if (u.size() < 2 || std::any_of(u.begin(), u.end(), [&named](int h) { return named.Has(h); })) continue;
      for (int h : u) {
        for (int other : u) {
          if (other != h) named.ties[h].insert(other);
        }
      }
    }
  }
  for (const auto& [h, mates] : named.ties) named.hosts.insert(h);
  return named;
}

// A suspect's blocks level by level: "level 1 [..] 0.2 GB/s, 25% of the typical block's .., failed; ...".
struct BlockTrail {
  std::string levels;
  int ran = 0, failed = 0;
  double milder = 0;    // the highest share of typical among its failing finest blocks
  std::set<int> mates;  // its block mates in failing finest blocks
};

BlockTrail TrailOf(int h, const std::vector<std::string>& hosts, const std::vector<LevelVerdict>& levels) {
  BlockTrail t;
  const int last_level = levels.back().level;
  const bool has_shifted = levels.size() >= 2 && levels.back().finest && levels[levels.size() - 2].finest;
  for (const LevelVerdict& l : levels) {
    const BlockVerdict* mine = nullptr;
    for (const BlockVerdict& b : l.blocks) {
      if (Contains(b.hosts, h)) mine = &b;
    }
    const std::string name = LevelName(l, has_shifted && l.level == last_level);
    if (!mine) {
      t.levels += (t.levels.empty() ? "" : "; ") + name + ": sat out";
      continue;
    }
    ++t.ran;
    t.failed += mine->failed;
    const double share = l.typical_gbps > 0 ? mine->gbps / l.typical_gbps : 0;
    t.levels += (t.levels.empty() ? "" : "; ") + name + " [" + BlockName(hosts, mine->hosts) + "] " + Gbps(mine->gbps) +
                ", " + Percent(share) + " of the typical block's " + Gbps(l.typical_gbps) + ", " +
                (mine->failed ? "failed" : "passed");
    if (l.finest && mine->failed) {
      t.milder = std::max(t.milder, share);
      for (int m : mine->hosts) {
        if (m != h) t.mates.insert(m);
      }
    }
  }
  return t;
}

// The first level at which `m` was in a passing finest block ("" when none).
std::string WhereCleared(int m, const std::vector<LevelVerdict>& levels) {
  for (const LevelVerdict& l : levels) {
    for (const BlockVerdict& b : l.blocks) {
      if (l.finest && !b.failed && Contains(b.hosts, m)) return "level " + std::to_string(l.level);
    }
  }
  return "";
}

BisectSuspect SuspectOf(int h, const std::vector<std::string>& hosts, const std::vector<LevelVerdict>& levels,
                        const Named& named) {
  BisectSuspect s;
  s.host = h;
  auto tie = named.ties.find(h);
  if (tie != named.ties.end()) s.tied_with.assign(tie->second.begin(), tie->second.end());
  const BlockTrail t = TrailOf(h, hosts, levels);
  s.severity = std::clamp(1 - t.milder, 0.0, 1.0);
  std::string mates_cleared, not_cleared;
  for (int m : t.mates) {
    if (tie != named.ties.end() && tie->second.count(m)) continue;
    const std::string where = WhereCleared(m, levels);
    if (!where.empty()) {
      mates_cleared += (mates_cleared.empty() ? "" : ", ") + hosts[static_cast<size_t>(m)] + " at " + where;
    } else if (!named.Has(m)) {
      not_cleared += (not_cleared.empty() ? "" : ", ") + hosts[static_cast<size_t>(m)];
    }
  }
  s.evidence = "its block failed at " + std::to_string(t.failed) + " of the " + std::to_string(t.ran) +
               " levels it ran: " + t.levels;
  if (!mates_cleared.empty()) s.evidence += "; its block mates passed in other blocks (" + mates_cleared + ")";
  if (!s.tied_with.empty()) {
    s.evidence += "; it could not be told apart from " + BlockName(hosts, s.tied_with) +
                  " (no finest block held one without the other)";
  }
  if (!not_cleared.empty()) s.evidence += "; " + not_cleared + " shared its failing block and passed nowhere";
  return s;
}

// Failing blocks that no suspect explains, with why.
std::vector<UnexplainedBlock> Unexplained(const std::vector<std::string>& hosts,
                                          const std::vector<LevelVerdict>& levels, const Named& named,
                                          bool any_cleared) {
  std::vector<UnexplainedBlock> out;
  for (const LevelVerdict& l : levels) {
    for (const BlockVerdict& b : l.blocks) {
      if (!b.failed || std::any_of(b.hosts.begin(), b.hosts.end(), [&named](int h) { return named.Has(h); })) {
        continue;
      }
      UnexplainedBlock u;
      u.level = l.level;
      u.hosts = b.hosts;
      u.gbps = b.gbps;
      u.typical_gbps = l.typical_gbps;
      std::string why;
      if (!any_cleared) {
        why = "no block of the finest cuts passed: the slowdown is everywhere, not one host's";
      } else if (l.finest) {
        why =
            "each of its hosts passed in another block: the slowdown shows only in this combination (a link "
            "between them: the pairs phase names links)";
      } else {
        why =
            "none of its hosts failed at the finest cuts: the slowdown shows at this scale (a shared switch or "
            "uplink) or between two of its hosts (a link: the pairs phase names links)";
      }
      u.evidence = "level " + std::to_string(l.level) + " block [" + BlockName(hosts, b.hosts) + "] " + Gbps(b.gbps) +
                   ", " + Percent(l.typical_gbps > 0 ? b.gbps / l.typical_gbps : 0) + " of the typical block's " +
                   Gbps(l.typical_gbps) + " (threshold " + Gbps(l.threshold_gbps) + "): " + why;
      out.push_back(std::move(u));
    }
  }
  return out;
}

}  // namespace

Bisection Bisect(const std::vector<std::string>& hosts, const std::vector<BlockResult>& results,
                 const BisectOptions& options) {
  const int n = static_cast<int>(hosts.size());
  Bisection out;
  out.cleared.assign(hosts.size(), false);
  const BlocksByLevel by_level = BestBlocks(n, results);
  if (by_level.empty()) return out;
  out.levels = JudgeLevels(n, by_level, options);
  // A passing block of a finest cut clears its hosts.
  for (const LevelVerdict& l : out.levels) {
    if (!l.finest) continue;
    for (const BlockVerdict& b : l.blocks) {
      if (b.failed) continue;
      for (int h : b.hosts) out.cleared[static_cast<size_t>(h)] = true;
    }
  }
  const bool any_cleared = std::find(out.cleared.begin(), out.cleared.end(), true) != out.cleared.end();
  const Named named = NameHosts(out, any_cleared);
  for (int h : named.hosts) out.suspects.push_back(SuspectOf(h, hosts, out.levels, named));
  std::stable_sort(out.suspects.begin(), out.suspects.end(),
                   [](const BisectSuspect& a, const BisectSuspect& b) { return a.severity > b.severity; });
  out.unexplained = Unexplained(hosts, out.levels, named, any_cleared);
  return out;
}

}  // namespace commbench::accept
