#include "lib/diagnose/ab.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <random>

#include "lib/result/host_load.h"
#include "lib/stats/fit.h"

namespace commbench {
namespace diagnose {

using result::AbOutcome;
using result::AbRecord;
using result::CutInterval;
using result::FindingStatus;

bool AbFactor::Varies(const std::string& axis) const { return std::find(axes.begin(), axes.end(), axis) != axes.end(); }

namespace {

std::string AxisOf(const SeriesData& s, const std::string& axis) {
  auto it = s.axes.find(axis);
  return it == s.axes.end() ? "" : it->second;
}

// A standard normal draw from the generator's bits (Box-Muller): std::normal_distribution differs between
// standard libraries, and the interval must not.
double Normal(std::mt19937_64& rng) {
  constexpr double kPi = 3.14159265358979323846;
  const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
  const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * kPi * u2);
}

double Percentile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::string Percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f%%", 100 * v);
  return buf;
}

}  // namespace

CutInterval BootstrapCut(const AnalysisInput& in, int a, int b, int resamples, uint64_t seed) {
  const SeriesData& sa = in.series[static_cast<size_t>(a)];
  const SeriesData& sb = in.series[static_cast<size_t>(b)];
  // The group counts both sides measured, with each point's noise as the fits see it.
  std::vector<double> g, ya, na, yb, nb;
  const double floor = std::max(in.OptionsFor(sa).relative_noise_floor, in.OptionsFor(sb).relative_noise_floor);
  for (size_t i = 0; i < sa.groups.size(); ++i) {
    auto it = std::find(sb.groups.begin(), sb.groups.end(), sa.groups[i]);
    if (it == sb.groups.end()) continue;
    const size_t j = static_cast<size_t>(it - sb.groups.begin());
    g.push_back(sa.groups[i]);
    ya.push_back(sa.p50_us[i]);
    na.push_back(std::max(sa.se_us[i], floor * std::fabs(sa.p50_us[i])));
    yb.push_back(sb.p50_us[j]);
    nb.push_back(std::max(sb.se_us[j], floor * std::fabs(sb.p50_us[j])));
  }
  const size_t n = g.size();
  if (n < 2 || resamples < 1) return {};
  // Residuals from each side's least-squares line, scaled up for the two fitted parameters (none with 2 points:
  // the line fits them exactly and only their own noise remains).
  auto residuals = [&g, n](const std::vector<double>& y) {
    const LinearFit line = FitLine(g, y);
    const double scale = n > 2 ? std::sqrt(static_cast<double>(n) / static_cast<double>(n - 2)) : 0.0;
    std::vector<double> r(n);
    for (size_t i = 0; i < n; ++i) r[i] = scale * (y[i] - (line.intercept + line.slope * g[i]));
    return r;
  };
  const std::vector<double> resid_a = residuals(ya), resid_b = residuals(yb);
  std::mt19937_64 rng(seed);
  std::vector<double> cuts;
  cuts.reserve(static_cast<size_t>(resamples));
  std::vector<double> ra(n), rb(n), xs(n), as(n), bs(n);
  for (int r = 0; r < resamples; ++r) {
    // Over iterations: every point's value redrawn from its own uncertainty, once per resample.
    for (size_t i = 0; i < n; ++i) {
      ra[i] = ya[i] + na[i] * Normal(rng);
      rb[i] = yb[i] + nb[i] * Normal(rng);
    }
    // Over points: the group counts stay (they are the design, not a sample) and each side's residuals from its
    // own line are drawn with replacement, the same draws for A and B. Resampling the group counts themselves
    // leaves a 3-point series mostly with sub-ranges (G=2..3 alone) where a step's growth is not in view.
    for (size_t i = 0; i < n; ++i) {
      const size_t k = static_cast<size_t>(rng() % n);
      xs[i] = g[i];
      as[i] = ra[i] + resid_a[k];
      bs[i] = rb[i] + resid_b[k];
    }
    const double slope_a = FitLine(xs, as).slope, slope_b = FitLine(xs, bs).slope;
    cuts.push_back(slope_a > 0 ? 1 - std::max(slope_b, 0.0) / slope_a : 0.0);
  }
  std::sort(cuts.begin(), cuts.end());
  return {Percentile(cuts, 0.025), Percentile(cuts, 0.975)};
}

bool PairedCut::LoadCouldMakeACut() const {
  const bool known = a_outside_cpus >= 0 && b_outside_cpus >= 0;
  return known && (a_outside_cpus - b_outside_cpus >= result::kBusyOutsideCpus ||
                   a_load_growth - b_load_growth >= result::kBusyOutsideCpus);
}

bool PairedCut::LoadCouldHideACut() const {
  const bool known = a_outside_cpus >= 0 && b_outside_cpus >= 0;
  return known && (b_outside_cpus - a_outside_cpus >= result::kBusyOutsideCpus ||
                   b_load_growth - a_load_growth >= result::kBusyOutsideCpus);
}

std::optional<PairedCut> CutFromRounds(const std::vector<result::AbRound>& rounds, double relative_floor, int resamples,
                                       uint64_t seed) {
  // round -> group count -> that round's launches; only the group counts every round measured count.
  std::map<int, std::map<int, const result::AbRound*>> by_round;
  for (const result::AbRound& r : rounds) by_round[r.round][r.groups] = &r;
  std::map<int, size_t> seen;
  for (const auto& [round, at] : by_round) {
    for (const auto& entry : at) ++seen[entry.first];
  }
  std::vector<double> g;
  for (const auto& [groups, n] : seen) {
    if (n == by_round.size()) g.push_back(groups);
  }
  const size_t k = by_round.size(), m = g.size();
  if (k < 2 || m < 2) return std::nullopt;
  // a[r][i]: round r's A at g[i]; likewise its standard error and B.
  std::vector<std::vector<double>> a(k), sa(k), b(k), sb(k);
  double load_a = 0, load_b = 0;
  int known_a = 0, known_b = 0;
  // Per group count: the sum and number of known outside loads, A's and B's.
  std::vector<double> at_a(m), at_b(m), n_a(m), n_b(m);
  size_t r = 0;
  for (const auto& [round, at] : by_round) {
    for (size_t i = 0; i < m; ++i) {
      const result::AbRound& x = *at.at(static_cast<int>(g[i]));
      if (x.a.outside_cpus >= 0) at_a[i] += x.a.outside_cpus, ++n_a[i];
      if (x.b.outside_cpus >= 0) at_b[i] += x.b.outside_cpus, ++n_b[i];
      a[r].push_back(x.a.mean_us);
      sa[r].push_back(x.a.se_us);
      b[r].push_back(x.b.mean_us);
      sb[r].push_back(x.b.se_us);
      if (x.a.outside_cpus >= 0) load_a += x.a.outside_cpus, ++known_a;
      if (x.b.outside_cpus >= 0) load_b += x.b.outside_cpus, ++known_b;
    }
    ++r;
  }
  auto cut_of = [](double slope_a, double slope_b) { return slope_a > 0 ? 1 - std::max(slope_b, 0.0) / slope_a : 0.0; };
  auto mean_over = [&](const std::vector<std::vector<double>>& v, const std::vector<size_t>& drawn, size_t i) {
    double sum = 0;
    for (size_t d : drawn) sum += v[d][i];
    return sum / static_cast<double>(drawn.size());
  };
  PairedCut out;
  out.rounds = static_cast<int>(k);
  out.g_lo = g.front();
  out.g_hi = g.back();
  std::vector<size_t> all(k);
  for (size_t i = 0; i < k; ++i) all[i] = i;
  std::vector<double> ya(m), yb(m);
  for (size_t i = 0; i < m; ++i) ya[i] = mean_over(a, all, i), yb[i] = mean_over(b, all, i);
  const double slope_a = FitLine(g, ya).slope, slope_b = FitLine(g, yb).slope;
  out.growth_a_us = slope_a * (out.g_hi - out.g_lo);
  out.growth_b_us = slope_b * (out.g_hi - out.g_lo);
  out.cut = cut_of(slope_a, slope_b);
  for (size_t i = 0; i < k; ++i) {
    out.round_cuts.push_back(cut_of(FitLine(g, a[i]).slope, FitLine(g, b[i]).slope));
  }
  // A grows when its growth over the ends exceeds twice their noise: the rounds' spread and the launches' own.
  auto se_at = [&](size_t i) {
    double mean = ya[i], var = 0, own = 0;
    for (size_t d = 0; d < k; ++d) var += (a[d][i] - mean) * (a[d][i] - mean), own += sa[d][i] * sa[d][i];
    return std::sqrt(var / static_cast<double>(k - 1) / static_cast<double>(k) + own / static_cast<double>(k * k));
  };
  const double noise = std::hypot(se_at(0), se_at(m - 1));
  out.a_grows = out.growth_a_us > 2 * noise && out.growth_a_us > relative_floor * std::fabs(ya[0]);
  const bool confirms =
      std::any_of(out.round_cuts.begin(), out.round_cuts.end(), [](double c) { return c >= kConfirmCut; });
  const bool rules_out =
      std::any_of(out.round_cuts.begin(), out.round_cuts.end(), [](double c) { return c < kRuleOutCutHigh; });
  out.disagree = confirms && rules_out;
  if (known_a > 0) out.a_outside_cpus = load_a / known_a;
  if (known_b > 0) out.b_outside_cpus = load_b / known_b;
  auto load_growth = [m](const std::vector<double>& sum, const std::vector<double>& n) {
    return n[0] > 0 && n[m - 1] > 0 ? sum[m - 1] / n[m - 1] - sum[0] / n[0] : 0.0;
  };
  out.a_load_growth = load_growth(at_a, n_a);
  out.b_load_growth = load_growth(at_b, n_b);
  // Over rounds (drawn with replacement, the same for both sides) and each launch's own noise.
  std::mt19937_64 rng(seed);
  std::vector<double> cuts;
  std::vector<size_t> drawn(k);
  std::vector<double> ra(m), rb(m);
  for (int s = 0; s < resamples; ++s) {
    for (size_t d = 0; d < k; ++d) drawn[d] = static_cast<size_t>(rng() % k);
    for (size_t i = 0; i < m; ++i) {
      ra[i] = mean_over(a, drawn, i);
      rb[i] = mean_over(b, drawn, i);
      double own_a = 0, own_b = 0;
      for (size_t d : drawn) own_a += sa[d][i] * sa[d][i], own_b += sb[d][i] * sb[d][i];
      ra[i] += std::sqrt(own_a) / static_cast<double>(k) * Normal(rng);
      rb[i] += std::sqrt(own_b) / static_cast<double>(k) * Normal(rng);
    }
    cuts.push_back(cut_of(FitLine(g, ra).slope, FitLine(g, rb).slope));
  }
  if (!cuts.empty()) {
    std::sort(cuts.begin(), cuts.end());
    out.cut_ci95 = {std::min(Percentile(cuts, 0.025), out.cut), std::max(Percentile(cuts, 0.975), out.cut)};
  }
  return out;
}

std::vector<std::string> DifferingAxes(const SeriesData& a, const SeriesData& b) {
  std::vector<std::string> out;
  for (const std::string& axis : SeriesAxes()) {
    if (AxisOf(a, axis) != AxisOf(b, axis)) out.push_back(axis);
  }
  return out;
}

std::string PartnerLabel(const std::string& axis, const std::string& value) {
  if (axis == "cpus" && value.empty()) return "all cores";
  if (axis == "graph") return value == "true" ? "--graph" : "no --graph";
  if (axis == "concurrency" && value == "sequential") return "groups one after another (--concurrency sequential)";
  std::string flag = "--" + axis;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag + " " + value;
}

namespace {

// The series reachable from `a` by changing the factor's axes alone, one axis at a time; `a` first.
std::vector<int> Family(const AnalysisInput& in, int a, const AbFactor& factor) {
  std::vector<int> family = {a};
  for (size_t i = 0; i < family.size(); ++i) {
    for (const std::string& axis : factor.axes) {
      for (int b : in.Partners(family[i], axis)) {
        if (std::find(family.begin(), family.end(), b) == family.end()) family.push_back(b);
      }
    }
  }
  return family;
}

std::string PercentList(const std::vector<double>& v) {
  std::string out;
  for (double x : v) out += (out.empty() ? "" : ", ") + Percent(x);
  return out;
}

std::string Cpus(double cpus) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f CPU", cpus);
  return buf;
}

// "its sides saw different outside load (A 0.91 CPU, B 1.28 CPU of other processes' CPU time): WHAT"
std::string LoadNote(const PairedCut& p, const std::string& what) {
  return "its sides saw different outside load (A " + Cpus(p.a_outside_cpus) + ", B " + Cpus(p.b_outside_cpus) +
         " of other processes' CPU time): " + what;
}

// A pair the sweep measured in its own order: its figures are shown, but sides run minutes apart compare two
// moments of the host as much as two settings, so it neither confirms nor rules out.
AbRecord SweepOnlyPair(const AnalysisInput& in, const AbComparison& c, AbRecord r) {
  r.outcome = AbOutcome::kInconclusive;
  if (!c.a_grows) {
    r.note = "A does not grow over the group counts both sides share, so the pair tests nothing";
    return r;
  }
  r.cut_ci95 = BootstrapCut(in, c.a, c.b);
  // The reported cut is the more conservative of model and line; the interval must contain it.
  r.cut_ci95.lo = std::min(r.cut_ci95.lo, r.cut);
  r.cut_ci95.hi = std::max(r.cut_ci95.hi, r.cut);
  r.note =
      "the sides ran at different moments of the sweep, not alternated, so the pair neither confirms nor rules "
      "out: --explain measures it as alternating launches (A B, B A, ...)";
  return r;
}

// One pair, cause on A and removed on B, compared and judged; nullopt when they share fewer than two group counts.
std::optional<AbRecord> EvaluatePair(const AnalysisInput& in, int a, int b, const std::string& axis) {
  const SeriesData& sb = in.series[static_cast<size_t>(b)];
  const AbComparison c = in.Compare(a, b);
  if (c.g_hi <= c.g_lo) return std::nullopt;  // fewer than two shared group counts: no growth to compare
  AbRecord r;
  r.factor = axis;
  r.partner = PartnerLabel(axis, AxisOf(sb, axis));
  for (int p : sb.points) r.points.push_back(in.points[static_cast<size_t>(p)].id);
  r.g_lo = c.g_lo;
  r.g_hi = c.g_hi;
  r.growth_a_us = c.growth_a_us;
  r.growth_b_us = c.growth_b_us;
  r.cut = c.cut;
  r.a_series = a;
  r.b_series = b;
  const std::optional<InterleavedAb> interleaved = in.InterleavedFor(a, b);
  const double floor = std::max(in.OptionsFor(in.series[static_cast<size_t>(a)]).relative_noise_floor,
                                in.OptionsFor(sb).relative_noise_floor);
  const std::optional<PairedCut> paired = interleaved ? CutFromRounds(interleaved->rounds, floor) : std::nullopt;
  if (!paired) return SweepOnlyPair(in, c, std::move(r));
  r.pairs = paired->rounds;
  r.pair_cuts = paired->round_cuts;
  r.g_lo = paired->g_lo;
  r.g_hi = paired->g_hi;
  r.growth_a_us = paired->growth_a_us;
  r.growth_b_us = paired->growth_b_us;
  r.cut = paired->cut;
  r.cut_ci95 = paired->cut_ci95;
  r.outcome = AbOutcome::kInconclusive;
  const std::string rounds = std::to_string(paired->rounds) + " interleaved rounds";
  if (!paired->a_grows) {
    r.note = "A does not grow beyond its noise over the " + rounds + ", so the pair tests nothing";
  } else if (paired->disagree) {
    r.note = "its " + rounds + " disagree (cuts " + PercentList(paired->round_cuts) +
             "): the host changed under them; it stays suspected";
  } else if (r.cut >= kConfirmCut && r.cut_ci95.lo >= kConfirmCutLow) {
    r.outcome = paired->LoadCouldMakeACut() ? AbOutcome::kInconclusive : AbOutcome::kSupports;
    r.note = paired->LoadCouldMakeACut() ? LoadNote(*paired, "A's extra load may be its growth: it stays suspected")
             : paired->LoadDiffers()     ? LoadNote(*paired, "B grew less despite its extra load")
                                         : "";
  } else if (r.cut_ci95.hi < kRuleOutCutHigh) {
    r.outcome = paired->LoadCouldHideACut() ? AbOutcome::kInconclusive : AbOutcome::kRulesOut;
    r.note = paired->LoadCouldHideACut() ? LoadNote(*paired, "B's extra load may hide a cut: it stays suspected")
             : paired->LoadDiffers()     ? LoadNote(*paired, "B grew as much despite A's extra load")
                                         : "";
  } else {
    r.outcome = AbOutcome::kInconclusive;
    r.note = "cut " + Percent(r.cut) + ", 95% interval " + Percent(r.cut_ci95.lo) + " to " + Percent(r.cut_ci95.hi) +
             ": confirming needs a cut of at least " + Percent(kConfirmCut) +
             " with the interval's lower end at least " + Percent(kConfirmCutLow) + ", ruling out an upper end below " +
             Percent(kRuleOutCutHigh);
  }
  return r;
}

}  // namespace

std::vector<AbRecord> EvaluateAbs(const AnalysisInput& in, int a, const AbFactor& factor, const std::string& rule) {
  if (!factor.removes) return {};
  // Every pair in the family, once, with the cause on its A side. Those where `a` is A come first, then those
  // where it is B (a partner that adds the cause, e.g. --explain's --cpus 0 beside all cores), then the rest.
  struct Oriented {
    int a, b;
    std::string axis;
    int order;
  };
  std::vector<Oriented> pairs;
  const std::vector<int> family = Family(in, a, factor);
  for (int x : family) {
    const SeriesData& sx = in.series[static_cast<size_t>(x)];
    for (const std::string& axis : factor.axes) {
      // Partners() keeps every other axis equal: a B that changed something else as well proves nothing alone.
      for (int y : in.Partners(x, axis)) {
        if (!factor.removes(in, sx, in.series[static_cast<size_t>(y)], axis)) continue;
        pairs.push_back({x, y, axis, x == a ? 0 : y == a ? 1 : 2});
      }
    }
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const Oriented& p, const Oriented& q) { return p.order < q.order; });
  std::vector<AbRecord> out;
  for (const Oriented& p : pairs) {
    std::optional<AbRecord> r = EvaluatePair(in, p.a, p.b, p.axis);
    if (!r) continue;
    if (p.a != a) r->a_side = PartnerLabel(p.axis, AxisOf(in.series[static_cast<size_t>(p.a)], p.axis));
    auto credit = in.ab_credit.find({p.a, p.b});
    if (credit != in.ab_credit.end() && credit->second.rule != rule) {
      r->supports_cause = credit->second.cause;
      r->note = "this A/B confirms " + credit->second.cause + ", whose factor it varies: one A/B confirms one cause";
    }
    out.push_back(std::move(*r));
  }
  return out;
}

AbJudgement JudgeAbs(const std::vector<AbRecord>& abs) {
  AbJudgement j;
  int supports = -1, rules_out = -1, best = -1;
  for (size_t i = 0; i < abs.size(); ++i) {
    const AbRecord& r = abs[i];
    const int k = static_cast<int>(i);
    if (r.outcome == AbOutcome::kSupports && r.supports_cause.empty()) {
      if (supports < 0 || r.cut_ci95.lo > abs[static_cast<size_t>(supports)].cut_ci95.lo) supports = k;
    } else if (r.outcome == AbOutcome::kRulesOut) {
      if (rules_out < 0 || r.cut_ci95.hi < abs[static_cast<size_t>(rules_out)].cut_ci95.hi) rules_out = k;
    }
    if (r.supports_cause.empty() && (best < 0 || r.cut > abs[static_cast<size_t>(best)].cut)) best = k;
  }
  if (supports >= 0 && rules_out < 0) {
    j.status = FindingStatus::kConfirmed;
    j.decisive = supports;
  } else if (rules_out >= 0 && supports < 0) {
    j.status = FindingStatus::kRuledOut;
    j.decisive = rules_out;
  } else {
    j.status = FindingStatus::kSuspected;
    j.conflicting = supports >= 0 && rules_out >= 0;
    j.decisive = j.conflicting ? supports : best >= 0 ? best : abs.empty() ? -1 : 0;
  }
  return j;
}

std::map<std::pair<int, int>, AbCredit> CreditSharedAbs(
    const AnalysisInput& in, const std::vector<result::Finding>& findings,
    const std::function<const AbFactor*(const std::string&)>& factor_of) {
  std::map<std::pair<int, int>, std::vector<size_t>> claims;
  for (size_t f = 0; f < findings.size(); ++f) {
    for (const AbRecord& r : findings[f].ab) {
      if (r.outcome != AbOutcome::kSupports || !r.supports_cause.empty() || r.a_series < 0 || r.b_series < 0) continue;
      std::vector<size_t>& c = claims[{r.a_series, r.b_series}];
      if (std::find(c.begin(), c.end(), f) == c.end()) c.push_back(f);
    }
  }
  std::map<std::pair<int, int>, AbCredit> credit;
  for (const auto& [pair, claimants] : claims) {
    if (claimants.size() < 2) continue;
    const std::vector<std::string> varied =
        DifferingAxes(in.series[static_cast<size_t>(pair.first)], in.series[static_cast<size_t>(pair.second)]);
    auto owns = [&](size_t f) {
      const AbFactor* factor = factor_of(findings[f].rule);
      return factor != nullptr && !varied.empty() &&
             std::all_of(varied.begin(), varied.end(), [factor](const std::string& ax) { return factor->Varies(ax); });
    };
    // The owner: the rule whose factor the pair varies; among several, the strongest signature (then the first).
    int winner = -1;
    for (bool need_owner : {true, false}) {
      for (size_t f : claimants) {
        if (need_owner && !owns(f)) continue;
        if (winner < 0 || findings[f].strength > findings[static_cast<size_t>(winner)].strength)
          winner = static_cast<int>(f);
      }
      if (winner >= 0) break;
    }
    const result::Finding& w = findings[static_cast<size_t>(winner)];
    credit[pair] = {w.rule, w.cause};
  }
  return credit;
}

}  // namespace diagnose
}  // namespace commbench
