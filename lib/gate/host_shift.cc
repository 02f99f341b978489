#include "lib/gate/host_shift.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "lib/gate/one_more_run.h"
#include "lib/stats/summary.h"

namespace commbench::gate {
namespace {

std::string Format(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

double LowerQuartile(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return PercentileSorted(values, kHostQuantile * 100);
}

double RatioOfLowerQuartiles(const std::vector<double>& base, const std::vector<double>& now) {
  const double b = LowerQuartile(base);
  return b > 0 ? LowerQuartile(now) / b : HostShift::kNaN;
}

}  // namespace

std::string HostShift::Describe() const {
  if (!judged) return "the host's speed was not compared: " + not_judged;
  const double change = std::fabs(ratio - 1) * 100;
  const std::string tolerance = Format("%.0f", kHostTolerance * 100) + " %";
  std::string head;
  const std::string than = jobs > 0 ? " than across the " + std::to_string(jobs) + " jobs of the baseline's build"
                                    : " than when the baseline was stored";
  if (significant) {
    head = "the host is " + Format("%.1f", change) + (ratio > 1 ? " % slower" : " % faster") + than +
           (moved ? "" : " (its interval reaches into the " + tolerance + " a quiet host moves)");
  } else if (jobs > 0 && (could_be_slower() || could_be_faster())) {
    head = "the host is " + Format("%.1f", change) + (ratio > 1 ? " % slower" : " % faster") + than +
           ", more than the " + tolerance + " a quiet host moves (not significant)";
  } else if (could_be_slower() || could_be_faster()) {
    head = "the host's speed is not known closely enough: its reference moved by " + Format("%+.1f", (lo - 1) * 100) +
           " % to " + Format("%+.1f", (hi - 1) * 100) + " %, more than the " + tolerance + " a quiet host moves";
  } else {
    head = jobs > 0 ? "the host's speed is within what it was across the " + std::to_string(jobs) +
                          " jobs of the baseline's build"
                    : "the host's speed is as when the baseline was stored";
  }
  return head + " (reference ratio " + Format("%.3f", ratio) +
         (jobs > 0 ? " to the jobs', 95 % prediction interval " : ", 95 % interval ") + Format("%.3f", lo) + "-" +
         Format("%.3f", hi) + ", p " + Format("%.2g", p) + "; loopback round trips x" + Format("%.3f", loopback_ratio) +
         ", copies x" + Format("%.3f", copy_ratio) + "; " + std::to_string(base_n) + " and " + std::to_string(now_n) +
         " samples)";
}

namespace {

// What both judgments share: whether the two sides' samples compare at all, and each part's ratio.
HostShift Comparable(const result::HostReference& base, const result::HostReference& now) {
  HostShift h;
  h.base_n = base.size();
  h.now_n = now.size();
  if (base.size() == 0) {
    h.not_judged = "the baseline has no host reference (stored before commbench measured one)";
  } else if (now.size() == 0) {
    h.not_judged = "this job measured no host reference";
  } else if (base.workload != now.workload) {
    h.not_judged = "the baseline's reference workload differs from this build's";
  } else if (base.size() < kLeastHostSamples || now.size() < kLeastHostSamples) {
    h.not_judged = "fewer than " + std::to_string(kLeastHostSamples) + " samples a side";
  }
  if (!h.not_judged.empty()) return h;
  h.judged = true;
  h.loopback_ratio = RatioOfLowerQuartiles(base.loopback_s, now.loopback_s);
  h.copy_ratio = RatioOfLowerQuartiles(base.copy_s, now.copy_s);
  return h;
}

void Classify(double alpha, HostShift* h) {
  h->significant = h->p < alpha && (h->lo > 1 || h->hi < 1);
  h->moved = h->significant && (h->lo > 1 + kHostTolerance || h->hi < 1 - kHostTolerance);
}

}  // namespace

HostShift JudgeHostShift(const result::HostReference& base, const result::HostReference& now, double alpha,
                         uint64_t seed) {
  HostShift h = Comparable(base, now);
  if (!h.judged) return h;
  const std::vector<double> b = base.totals_s(), n = now.totals_s();
  h.ratio = RatioOfLowerQuartiles(b, n);
  BootstrapRatioCI(b, n, 2000, seed, &h.lo, &h.hi, LowerQuartile);
  h.p = MannWhitney(b, n).p;
  Classify(alpha, &h);
  return h;
}

double HostSpeed(const result::HostReference& job) {
  return job.size() < kLeastHostSamples ? HostShift::kNaN : LowerQuartile(job.totals_s());
}

HostShift JudgeHostAgainstJobs(const result::HostReference& base, const std::vector<double>& other_jobs_s,
                               const result::HostReference& now, double alpha, uint64_t seed) {
  if (other_jobs_s.size() < kLeastOtherJobs) return JudgeHostShift(base, now, alpha, seed);
  HostShift h = Comparable(base, now);
  if (!h.judged) return h;
  std::vector<double> runs = {HostSpeed(base)};
  runs.insert(runs.end(), other_jobs_s.begin(), other_jobs_s.end());
  DecisionOptions options;
  options.alpha = alpha;
  options.min_effect = kHostTolerance;
  const Decision d = DecideAgainstRuns(runs, {HostSpeed(now)}, options);
  h.jobs = runs.size();
  h.ratio = d.ratio;
  h.lo = d.ratio_lo;
  h.hi = d.ratio_hi;
  h.p = d.test.p;
  Classify(alpha, &h);
  return h;
}

void AllowForHost(const HostShift& host, Decision* d) {
  if (d->change == Change::kInconclusive) return;
  if (host.moved) {
    d->reason = "not judged, " + host.Describe() + ": store the baseline again on this runner, or gate with --ab " +
                "(measured: " + d->reason + ")";
    d->change = Change::kInconclusive;
    return;
  }
  std::string why;
  if (d->change == Change::kSlower && host.significant && host.lo > 1) {
    why = "a slowdown on a slower host is not the build's alone";
  } else if (d->change == Change::kSlower && host.could_be_slower()) {
    why = "a slowdown the host's own could explain is not the build's alone";
  } else if (d->change == Change::kUnchanged && host.could_be_faster()) {
    why = "a faster host could hide a slowdown of its size";
  }
  if (why.empty()) return;
  d->reason = "not judged, " + host.Describe() + ": " + why + " (measured: " + d->reason + ")";
  d->change = Change::kInconclusive;
}

}  // namespace commbench::gate
