// A host slow in spells: at each op's bandwidth size, a host whose pair samples (one per round and repeat) fail far
// more often than the samples of pairs without it, in two rounds or more, while passing in others. The pair medians
// Localize reads hide it where the spells cover under half of its rounds; it is an intermittent suspect, re-tested
// by the figure that failed (judge/confirm.cc). "Far more often" is a one-sided binomial test of its failing count
// against the other pairs' rate, Bonferroni over the hosts, so a healthy cluster's single slow samples name no one.
#include <algorithm>
#include <cmath>
#include <set>

#include "lib/accept/judge/phases.h"
#include "lib/core/ranges.h"

namespace commbench::accept::judge {
namespace {

// A healthy cluster is suspected by one figure at most this often (and its re-test then clears it).
constexpr double kAlpha = 0.01;
constexpr int kMinRounds = 2;  // a host slow in one round only is a moment, not a spell

struct Sample {
  Pair pair;
  int round = 0;
  GroupSample figures;
};

// Every pair sample of the pairs rounds at one op and size, with its round.
std::vector<Sample> SamplesOf(const Judging& j, const Ran& ran, Collective op, uint64_t bytes) {
  std::vector<Sample> out;
  for (const PhaseResult* pr : ran) {
    for (const result::PointResult& pt : pr->points) {
      if (!Matches(pt, op, bytes)) continue;
      std::map<int, double> tails = GroupTails(pt);
      for (const result::GroupTime& g : pt.per_group) {
        Pair pair;
        if (!j.PairOf(GroupHosts(pt, g), &pair)) continue;
        out.push_back({pair, pr->round, {GroupBusbw(pt, g), g.p50_us, tails[g.group], pt.point.group_size, kNaN}});
      }
    }
  }
  return out;
}

// P(X >= k) for X ~ Binomial(n, p), summed in log space (n is a few dozen per host).
double UpperTail(int k, int n, double p) {
  if (k <= 0) return 1;
  double sum = 0;
  for (int i = k; i <= n; ++i) {
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * std::log(p) +
                    (n - i) * std::log1p(-p));
  }
  return std::min(1.0, sum);
}

// One figure a sample fails by: bandwidth below a share of the typical pair's, or p99 above a multiple of it.
struct Figured {
  const char* name;
  Figure figure;
  double line;  // as SuspectBasis::line: the factor beyond the typical that fails
  bool (*fails)(const GroupSample& s, double typical, double line);
  double (*of)(const GroupSample& s);
  std::string (*show)(double);
};

double Busbw(const GroupSample& s) { return s.busbw; }
double P99(const GroupSample& s) { return s.p50_us * s.tail; }
bool SlowBusbw(const GroupSample& s, double typical, double line) { return s.busbw * line < typical; }
bool SlowP99(const GroupSample& s, double typical, double line) { return P99(s) > typical * line; }

// The typical pair's figure: the median over pairs of each pair's median sample.
double Typical(const std::vector<Sample>& samples, double (*of)(const GroupSample&)) {
  std::map<Pair, std::vector<double>> by_pair;
  for (const Sample& s : samples) {
    const double v = of(s.figures);
    if (std::isfinite(v)) by_pair[s.pair].push_back(v);
  }
  std::vector<double> medians;
  for (const auto& [pair, v] : by_pair) medians.push_back(Median(v));
  return Median(medians);
}

// "below 25 MB/s (1/2 of the typical pair's 50 MB/s)", "above 260 ms (2x the typical pair's 130 ms)".
std::string Line(const Figured& f, double typical) {
  const bool below = f.figure == Figure::kBandwidth;
  return std::string(below ? "below " : "above ") + f.show(below ? typical / f.line : typical * f.line) + " (" +
         (below ? "1/" + Num(f.line) + " of" : Num(f.line) + "x") + " the typical pair's " + f.show(typical) + ")";
}

std::string Rounds(const std::set<int>& rounds) {
  std::string s;
  for (int r : rounds) s += (s.empty() ? "" : ", ") + std::to_string(r);
  return s;
}

void SpellsBy(Judging& j, Collective op, uint64_t bytes, const Figured& f, const std::vector<Sample>& samples) {
  const double typical = Typical(samples, f.of);
  if (!(typical > 0)) return;
  std::set<int> known;  // hosts already suspected: their pairs would inflate the others' rate
  for (const AcceptanceSuspect& s : j.report.suspects) {
    if (s.what != SuspectWhat::kLink && j.host_index.count(s.host)) known.insert(j.host_index.at(s.host));
  }
  const int hosts = static_cast<int>(j.hosts().size());
  for (int h = 0; h < hosts; ++h) {
    if (known.count(h)) continue;
    int mine = 0, mine_failed = 0, others = 0, others_failed = 0;
    std::set<int> rounds, failed_rounds, partners_failed;
    for (const Sample& s : samples) {
      if (!std::isfinite(f.of(s.figures))) continue;
      const bool failed = f.fails(s.figures, typical, f.line);
      if (s.pair.first == h || s.pair.second == h) {
        ++mine;
        rounds.insert(s.round);
        if (!failed) continue;
        ++mine_failed;
        failed_rounds.insert(s.round);
        partners_failed.insert(s.pair.first == h ? s.pair.second : s.pair.first);
      } else if (!known.count(s.pair.first) && !known.count(s.pair.second)) {
        ++others;
        others_failed += failed;
      }
    }
    // Spells, not a steady fault (Localize's) nor a moment: failing and passing rounds, failing with two partners.
    if (static_cast<int>(failed_rounds.size()) < kMinRounds || failed_rounds.size() == rounds.size() ||
        partners_failed.size() < 2) {
      continue;
    }
    const double rate = (others_failed + 1.0) / (others + 2.0);  // a rate of 0 seen is not a rate of 0
    const double p = UpperTail(mine_failed, mine, rate);
    if (p * hosts >= kAlpha) continue;
    AcceptanceSuspect s;
    s.what = SuspectWhat::kHost;
    s.host = j.hosts()[static_cast<size_t>(h)];
    s.reason = ReasonKind::kIntermittent;
    s.score = static_cast<double>(mine_failed) / mine;
    s.found_by.push_back({f.figure, op, bytes, f.line});
    s.evidence.push_back("pairs phase (" + std::string(Name(op)) + " " + FormatBytes(bytes) + ", " + f.name +
                         "): slow in spells: " + std::to_string(mine_failed) + " of its " + std::to_string(mine) +
                         " pair samples were " + Line(f, typical) + ", in round " + Rounds(failed_rounds) + " of " +
                         std::to_string(rounds.size()) + ", with " + std::to_string(partners_failed.size()) +
                         " partners, against " + std::to_string(others_failed) + " of the " + std::to_string(others) +
                         " samples of pairs without it (p = " + Num(p) + ")");
    j.AddSuspect(std::move(s));
  }
}

}  // namespace

void PairSpellSuspects(Judging& j, const Ran& ran) {
  const uint64_t bytes = j.profile.sizes.back();
  const double tail = 1 / j.profile.pairs.bandwidth_tail_fraction, share = 1 / j.profile.pairs.pair_fraction;
  const Figured figures[] = {{"busbw", Figure::kBandwidth, share, SlowBusbw, Busbw, Gbps},
                             {"p99", Figure::kP99, tail, SlowP99, P99, Us}};
  for (Collective op : j.profile.ops) {
    const std::vector<Sample> samples = SamplesOf(j, ran, op, bytes);
    for (const Figured& f : figures) SpellsBy(j, op, bytes, f, samples);
  }
}

}  // namespace commbench::accept::judge
