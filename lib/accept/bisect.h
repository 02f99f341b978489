// Acceptance's bisection of the host list, for large clusters: a handful of launches instead of `rounds` pair
// rounds. Level 1 cuts the hosts into blocks of half the cluster, each level halves the block size down to two
// hosts, and a last level cuts blocks of two again, moved by one host. Each level is one launch in which every
// block is a group of its own and all run at once. A block runs at the pace of its slowest host, so a block that
// passes clears its hosts; a bad host is the one left uncleared in the failing blocks of the two finest cuts (its
// block mates passed in the other cut). Coarser levels say at which scale the slowdown shows. The two finest cuts
// run first: they alone name a bad host, so when one is named clearly the coarser levels need not run (with a slow
// host in them they are the dearest launches: on the virtual cluster a half-cluster block with a capped host took
// 1.4 s per 4 MiB op, a block of two 0.67 s). A slow link between two hosts shows only where both ends share a
// block: the pairs phase names links. Pure functions over typed data.
#pragma once

#include <string>
#include <vector>

namespace commbench::accept {

// One level's cut: blocks of `block_hosts` consecutive hosts (in the host list, wrapping around), the hosts left
// over sit it out. The launcher needs groups of one size, so blocks never differ by a host.
struct BisectLevel {
  int level = 1;                         // 1-based; the points' phase is "bisect-<level>"
  int block_hosts = 0;                   // hosts per block
  bool shifted = false;                  // the last level: the finest cut again, moved
  std::vector<std::vector<int>> blocks;  // host indices per block
  std::vector<int> idle;                 // hosts that sit this level out
};

// The levels for `hosts` hosts, in the order they run: the cut into blocks of two, the shifted one, then the
// coarser ones back up to halves (log2(hosts) levels in all: 3 for 8 hosts, 10 for 1024). Levels are numbered by
// depth: level 1 cuts halves, each level halves the block size down to 2, the shifted cut comes last. The next
// cut down starts at the first host a cut left over, so no host sits out two neighbouring levels (nor both finest
// cuts). Empty below 4 hosts (no two blocks of two).
std::vector<BisectLevel> BisectionLevels(int hosts);

// One block's busbw in one launch (several at one level and hosts: repeats).
struct BlockResult {
  int level = 0;
  std::vector<int> hosts;
  double busbw_gbps = 0;
};

struct BisectOptions {
  double floor_gbps = 0;             // a block below it fails, at every level; 0: none
  double fraction_of_typical = 0.7;  // a block below this share of its level's typical block fails
};

struct BlockVerdict {
  std::vector<int> hosts;
  double gbps = 0;  // the best of its repeats: a block fails only if every repeat was slow
  bool failed = false;
};

struct LevelVerdict {
  int level = 0;
  int block_hosts = 0;
  bool finest = false;      // one of the two finest cuts, those that clear hosts
  double typical_gbps = 0;  // the upper median of its blocks: with two blocks, the faster one
  double threshold_gbps = 0;
  std::vector<BlockVerdict> blocks;
  std::vector<int> idle;  // hosts in no block of this level
};

struct BisectSuspect {
  int host = 0;
  double severity = 0;         // 1 - its failing finest blocks' busbw / their level's typical (the milder), 0..1
  std::vector<int> tied_with;  // uncleared block mates it could not be told apart from
  std::string evidence;        // one sentence: its block at each level against the typical, and who cleared whom
};

// A failing block that no suspect explains: every host in it passed elsewhere at the finest cuts, or (coarser
// levels) none of them is a suspect. The slowdown shows only in that combination or at that scale.
struct UnexplainedBlock {
  int level = 0;
  std::vector<int> hosts;
  double gbps = 0, typical_gbps = 0;
  std::string evidence;
};

struct Bisection {
  std::vector<LevelVerdict> levels;     // in level order, those with results
  std::vector<bool> cleared;            // per host: in a passing block of a finest cut
  std::vector<BisectSuspect> suspects;  // most severe first; empty for a healthy cluster
  std::vector<UnexplainedBlock> unexplained;
};

// `hosts` names the hosts (for the sentences); results refer to them by index.
Bisection Bisect(const std::vector<std::string>& hosts, const std::vector<BlockResult>& results,
                 const BisectOptions& options = {});

// "h0, h1" or "h0 .. h7 (8 hosts)".
std::string BlockName(const std::vector<std::string>& names, const std::vector<int>& hosts);

}  // namespace commbench::accept
