#include "lib/diagnose/rules/common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "lib/core/cpu_quota.h"

namespace commbench {
namespace diagnose {

std::vector<int> GrowingSeries(const AnalysisInput& in, const std::function<bool(const SeriesData&)>& pred) {
  std::vector<int> out;
  for (size_t i = 0; i < in.series.size(); ++i) {
    if (in.series[i].fit.grows && !in.series[i].explained && pred(in.series[i])) out.push_back(static_cast<int>(i));
  }
  std::stable_sort(out.begin(), out.end(), [&in](int a, int b) {
    return in.series[static_cast<size_t>(a)].fit.growth_fraction >
           in.series[static_cast<size_t>(b)].fit.growth_fraction;
  });
  return out;
}

std::string Fmt(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

std::string Describe(const SeriesData& s) {
  auto get = [&s](const char* k) {
    auto it = s.axes.find(k);
    return it == s.axes.end() ? std::string() : it->second;
  };
  std::string d = get("backend") + " " + get("op");
  if (!get("algo").empty()) d += "/" + get("algo");
  d += " " + get("bytes") + " B";
  for (const char* k : {"sync", "cpus", "pin", "stream", "h2d"}) {
    if (!get(k).empty() && get(k) != "none") d += std::string(" ") + k + "=" + get(k);
  }
  if (s.point.concurrency == Concurrency::kSequential) d += " concurrency=sequential";  // concurrent is the default
  return d;
}

namespace {

double CoresByAffinity(const AnalysisInput& in, const SeriesData& s) {
  const double listed = CountCpus(s.axes.count("cpus") ? s.axes.at("cpus") : "");
  const double reported = in.Last(s).cores_available > 0 ? in.Last(s).cores_available : in.cores_online;
  return listed > 0 && (reported <= 0 || listed < reported) ? listed : reported;
}

}  // namespace

double BindingCpuQuota(const AnalysisInput& in, const SeriesData& s) {
  const double quota = in.Last(s).cpu_quota;
  return QuotaBinds(quota, CoresByAffinity(in, s)) ? quota : 0;
}

double CoresForRanks(const AnalysisInput& in, const SeriesData& s) {
  const double quota = BindingCpuQuota(in, s);
  return quota > 0 ? quota : CoresByAffinity(in, s);
}

double RanksPerCore(const AnalysisInput& in, const SeriesData& s, const PointData& p) {
  const double cores = CoresForRanks(in, s);
  return std::max(p.threads_per_core, cores > 0 ? p.world / cores : 0.0);
}

void AddPointIds(const AnalysisInput& in, const SeriesData& s, std::vector<std::string>* ids) {
  for (int p : s.points) ids->push_back(in.points[static_cast<size_t>(p)].id);
}

namespace {

std::string Pct(double v) { return Fmt(100 * v, 0) + "%"; }

std::string Interval(const result::AbRecord& r) {
  return "95% interval " + Pct(r.cut_ci95.lo) + " to " + Pct(r.cut_ci95.hi);
}

std::string Range(const result::AbRecord& r) { return "G=" + Fmt(r.g_lo, 0) + ".." + Fmt(r.g_hi, 0); }

// The pair as the user would write it: "--pin compact", or "--cpus 0 to all cores" where A is another series.
std::string PairLabel(const result::AbRecord& r) {
  return r.a_side.empty() ? r.partner : r.a_side + " to " + r.partner;
}

// "with --cpus 0-1", or "from --cpus 0 to all cores" where A is another series than the finding's.
std::string With(const result::AbRecord& r) {
  return r.a_side.empty() ? "with " + r.partner : "from " + r.a_side + " to " + r.partner;
}

// "--pin compact: cut 12% (95% interval -3% to 25%), rules it out".
std::string Brief(const result::AbRecord& r) {
  std::string s = PairLabel(r) + ": cut " + Pct(r.cut) + " (" + Interval(r) + "), ";
  if (!r.supports_cause.empty()) return s + "confirms " + r.supports_cause + " instead";
  switch (r.outcome) {
    case result::AbOutcome::kSupports:
      return s + "supports it";
    case result::AbOutcome::kRulesOut:
      return s + "rules it out";
    case result::AbOutcome::kInconclusive:
      break;
  }
  return s + "inconclusive";
}

// The summary's A/B sentences for the judged status.
std::string AbSentences(const std::vector<result::AbRecord>& abs, const AbJudgement& j) {
  const result::AbRecord& d = abs[static_cast<size_t>(j.decisive)];
  const std::string fell =
      "the growth over " + Range(d) + " went from " + Fmt(d.growth_a_us) + " us to " + Fmt(d.growth_b_us) + " us";
  std::string s;
  if (j.status == FindingStatus::kConfirmed) {
    s = " A/B: " + With(d) + " " + fell + " (cut by " + Pct(d.cut) + ", " + Interval(d) + ").";
  } else if (j.status == FindingStatus::kRuledOut) {
    s = " A/B: " + With(d) + " " + fell + " (cut " + Pct(d.cut) + ", " + Interval(d) + "), so this is not the cause.";
  } else if (j.conflicting) {
    s = " The A/Bs disagree, so it stays suspected:";
    for (const result::AbRecord& r : abs) s += " " + Brief(r) + ";";
    s.back() = '.';
    return s;
  } else if (!d.supports_cause.empty()) {
    s = " A/B: " + With(d) + " " + fell + " (cut " + Pct(d.cut) + "), but " + d.note + ".";
  } else {
    s = " A/B inconclusive: " + With(d) + " " + fell + " (cut " + Pct(d.cut) + ", " + Interval(d) + "); " +
        (!d.note.empty() && d.note.rfind("cut ", 0) != 0 ? d.note
                                                         : "confirming needs a cut of at least 50% with the "
                                                           "interval's lower end at least 30%") +
        (d.pairs > 0 ? ". Repeat it with more rounds (--repeats) or group counts." : ".");
  }
  if (abs.size() > 1) {
    s += " Other A/Bs:";
    for (size_t i = 0; i < abs.size(); ++i) {
      if (static_cast<int>(i) != j.decisive) s += " " + Brief(abs[i]) + ";";
    }
    s.back() = '.';
  }
  return s;
}

void Judge(const std::string& confirm_command, Finding* f) {
  const AbJudgement j = JudgeAbs(f->ab);
  f->status = j.status;
  if (j.status == FindingStatus::kSuspected) f->confirm_command = confirm_command;
  if (j.decisive < 0) return;
  const result::AbRecord& d = f->ab[static_cast<size_t>(j.decisive)];
  f->cut = d.cut;
  f->cut_ci95 = d.cut_ci95;
  f->ab_points = d.points;
  if (!d.a_side.empty()) {
    f->evidence.push_back({"growth over " + Range(d) + " with the cause (" + d.a_side + ")", d.growth_a_us, "us"});
  }
  f->evidence.push_back({"growth over " + Range(d) + " without the cause (" + d.partner + ")", d.growth_b_us, "us"});
  f->evidence.push_back({"growth cut by the A/B", 100 * d.cut, "%"});
  f->evidence.push_back({"lower end of the cut's 95% interval", 100 * d.cut_ci95.lo, "%"});
  f->evidence.push_back({"upper end of the cut's 95% interval", 100 * d.cut_ci95.hi, "%"});
  f->summary += AbSentences(f->ab, j);
}

}  // namespace

void ApplyAbs(const AnalysisInput& in, int a, const AbFactor& factor, const std::string& confirm_command, Finding* f) {
  ApplyAbs(EvaluateAbs(in, a, factor, f->rule), confirm_command, f);
}

void ApplyAbs(std::vector<result::AbRecord> abs, const std::string& confirm_command, Finding* f) {
  f->ab = std::move(abs);
  Judge(confirm_command, f);
}

void ApplyAb(const AnalysisInput& in, const std::optional<AbComparison>& ab, const std::string& b_label,
             const std::string& confirm_command, Finding* f) {
  f->ab.clear();
  if (ab) {
    // The single partner as a factor of its own: every axis on which it differs, this partner only.
    const SeriesData& sb = in.series[static_cast<size_t>(ab->b)];
    AbFactor only;
    only.axes = DifferingAxes(in.series[static_cast<size_t>(ab->a)], sb);
    only.removes = [&sb](const AnalysisInput&, const SeriesData&, const SeriesData& b, const std::string&) {
      return &b == &sb;
    };
    for (result::AbRecord& r : EvaluateAbs(in, ab->a, only, f->rule)) {
      if (r.a_series != ab->a || r.b_series != ab->b) continue;
      r.partner = b_label;
      f->ab.push_back(std::move(r));
      break;
    }
  }
  Judge(confirm_command, f);
}

}  // namespace diagnose
}  // namespace commbench

namespace commbench {
namespace diagnose {

bool OnRequestedSeries(const AnalysisInput& in, const Finding& f) {
  return f.series < 0 || in.series[static_cast<size_t>(f.series)].requested;
}

std::optional<Finding> PickBest(const AnalysisInput& in, std::vector<Finding> candidates) {
  if (candidates.empty()) return std::nullopt;
  auto rank = [](const Finding& f) {
    return f.status == FindingStatus::kConfirmed ? 0 : f.status == FindingStatus::kSuspected ? 1 : 2;
  };
  std::stable_sort(candidates.begin(), candidates.end(), [&](const Finding& a, const Finding& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    // The user's own loop before one --explain added as an A/B side.
    const bool ra = OnRequestedSeries(in, a), rb = OnRequestedSeries(in, b);
    if (ra != rb) return ra;
    // A series whose own A/B was measured says more than one without (e.g. a --cpus partner series that
    // --explain added, which grows with the barrier too but has no --sync none twin).
    if (a.ab.empty() != b.ab.empty()) return !a.ab.empty();
    return a.strength > b.strength;
  });
  // A series whose A/B ruled the cause out stays in view beside the one that is still suspected or confirmed;
  // once per family (its series share their pairs), the first in the order above.
  Finding best = std::move(candidates.front());
  std::set<std::pair<int, int>> listed;
  auto shares_a_pair = [&listed](const Finding& f) {
    return std::any_of(f.ab.begin(), f.ab.end(), [&listed](const result::AbRecord& r) {
      return listed.count({r.a_series, r.b_series}) > 0;
    });
  };
  auto list = [&listed](const Finding& f) {
    for (const result::AbRecord& r : f.ab) listed.insert({r.a_series, r.b_series});
  };
  list(best);
  for (size_t i = 1; i < candidates.size() && best.status != FindingStatus::kRuledOut; ++i) {
    if (candidates[i].status != FindingStatus::kRuledOut || shares_a_pair(candidates[i])) continue;
    list(candidates[i]);
    best.ruled_out_elsewhere.push_back(std::move(candidates[i]));
  }
  return best;
}

std::optional<Finding> BestOverGrowingSeries(const AnalysisInput& in,
                                             const std::function<bool(const SeriesData&)>& pred,
                                             const BuildFinding& build) {
  std::vector<Finding> out;
  for (int a : GrowingSeries(in, pred)) {
    std::optional<Finding> f = build(in, a);
    if (f) out.push_back(std::move(*f));
  }
  return PickBest(in, std::move(out));
}

double PeakFor(const AnalysisInput& in, const SeriesData& s, std::string* which) {
  // A GPU collective moves device memory, which the host's peaks do not bound: on an H200 host measured at 7.1
  // GB/s memcpy, groups of a 1 MiB NCCL allreduce moved 13.8 GB/s together ("195% of the peak").
  if (in.First(s).point.gpu_backend()) {
    *which = "";
    return 0;
  }
  // The transport the point's ranks used (the backend's declared one where they did not say), in every point.
  const bool tcp = in.First(s).point.transport == Transport::kTcp;
  double peak = tcp ? in.tcp_loopback_gbps : in.memcpy_gbps;
  *which = tcp ? "loopback TCP peak" : "memory copy peak";
  if (peak <= 0) {
    peak = tcp ? in.memcpy_gbps : in.tcp_loopback_gbps;
    *which = tcp ? "memory copy peak" : "loopback TCP peak";
  }
  return peak;
}

std::string GrowthSentence(const AnalysisInput& in, const SeriesData& s) {
  const PointData& a = in.First(s);
  const PointData& b = in.Last(s);
  std::string model = GrowthModelName(s.fit.model);
  if (s.fit.model == GrowthModel::kStep) model += " at G=" + Fmt(s.fit.change_point, 0);
  if (s.fit.model == GrowthModel::kSaturation) model += ", levelling off at G=" + Fmt(s.fit.change_point, 0);
  return "from " + Fmt(a.p50_us) + " us at G=" + std::to_string(a.groups) + " to " + Fmt(b.p50_us) +
         " us at G=" + std::to_string(b.groups) + " (" + model + ", " + Fmt(s.fit.line.slope) + " us per added group)";
}

void AddGrowthEvidence(const AnalysisInput& in, const SeriesData& s, Finding* f) {
  const PointData& a = in.First(s);
  const PointData& b = in.Last(s);
  f->evidence.push_back({"loop cost per op at G=" + std::to_string(a.groups), a.p50_us, "us"});
  f->evidence.push_back({"loop cost per op at G=" + std::to_string(b.groups), b.p50_us, "us"});
  f->evidence.push_back({"slope per added group", s.fit.line.slope, "us"});
  f->evidence.push_back({"growth over the series", 100 * s.fit.growth_fraction, "%"});
  if (s.fit.model == GrowthModel::kStep || s.fit.model == GrowthModel::kSaturation) {
    f->evidence.push_back({std::string(GrowthModelName(s.fit.model)) + " change point", s.fit.change_point, "G"});
  }
  AddPointIds(in, s, &f->points);
}

}  // namespace diagnose
}  // namespace commbench
