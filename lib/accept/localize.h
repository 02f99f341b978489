// Acceptance's localisation: from pairwise measurements between hosts (random re-pairing rounds, each host meeting
// several partners), which host or which link between two hosts is slow. A pair moves data at the pace of its
// slower host or of the link between them, so a slow host fails with most of its partners, and a slow link fails
// only between two hosts that pass with everyone else. Pure functions over typed measurements.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace commbench::accept {

using Pair = std::pair<int, int>;  // host indices, first < second

// `rounds` rounds of random pairings of `hosts` hosts (a perfect matching each; with an odd count one host sits
// out, in turn). Pairs already met are avoided while unmet ones remain, so every host meets many partners.
std::vector<std::vector<Pair>> RepairingRounds(int hosts, int rounds, uint64_t seed);

struct PairResult {
  Pair pair;
  double busbw_gbps = 0;  // one measurement (a pair met in several rounds has several)
};

struct LocalizeOptions {
  double floor_gbps = 0;             // a declared floor; 0: none
  double fraction_of_typical = 0.7;  // a pair below this share of the typical pair fails too
  int min_failed_partners = 2;       // a host is suspect from this many failing partners...
  double min_failed_share = 0.5;     // ...making up at least this share of its partners
};

struct HostScore {
  int host = 0;
  int partners = 0, passed = 0;  // distinct partners met, and those whose pair passed
  double median_gbps = 0;        // over its pairs
};

enum class SuspectKind { kHost, kLink };

struct Suspect {
  SuspectKind kind = SuspectKind::kHost;
  int host = -1;                 // kHost
  Pair link = {-1, -1};          // kLink
  double severity = 0;           // 1 - its bandwidth / the typical pair's, in [0, 1]
  double gbps = 0;               // the host's median pair bandwidth, or the link's
  std::vector<int> failed_with;  // partners (kHost) whose pair failed
  std::string evidence;          // one sentence with the figures
};

struct Localization {
  double typical_gbps = 0;  // median over pairs
  double threshold_gbps = 0;
  std::vector<HostScore> hosts;
  std::vector<Suspect> suspects;  // most severe first; empty for a healthy cluster
};

Localization Localize(int hosts, const std::vector<PairResult>& results, const LocalizeOptions& options = {});

}  // namespace commbench::accept
