#include "lib/report/console_findings.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace commbench {
namespace {

using result::Finding;
using result::FindingStatus;
using result::Verdict;

std::string Number(double d) {
  if (!std::isfinite(d)) return "n/a";
  char buf[64];
  // Enough digits for small and large values alike, without a wall of decimals.
  if (d == std::floor(d) && std::fabs(d) < 1e12) {
    std::snprintf(buf, sizeof(buf), "%.0f", d);
  } else if (std::fabs(d) < 0.01) {
    std::snprintf(buf, sizeof(buf), "%.3g", d);
  } else if (std::fabs(d) < 100) {
    std::snprintf(buf, sizeof(buf), "%.2f", d);
  } else {
    std::snprintf(buf, sizeof(buf), "%.0f", d);
  }
  return buf;
}

std::string Percent(double v) { return std::isfinite(v) ? Number(std::round(100 * v)) + "%" : "n/a"; }

// Every A/B measured for the finding, one line each: what the status rests on, the inconclusive and the
// ruling-out ones included.
void WriteAbs(const Finding& f, std::ostringstream& out) {
  for (const result::AbRecord& a : f.ab) {
    out << "   A/B " << (a.a_side.empty() ? "" : a.a_side + " to ") << a.partner << " (G=" << Number(a.g_lo) << ".."
        << Number(a.g_hi) << "): growth "
        << Number(a.growth_a_us) << " -> " << Number(a.growth_b_us) << " us, cut " << Percent(a.cut)
        << " (95% interval " << Percent(a.cut_ci95.lo) << " to " << Percent(a.cut_ci95.hi) << "): "
        << (a.supports_cause.empty() ? NameOf(result::kAbOutcomeNames, a.outcome)
                                     : "confirms " + a.supports_cause + " instead")
        << "\n";
  }
}

void WriteFinding(int index, const Finding& f, std::ostringstream& out) {
  // The score as the result file records it (three decimals).
  out << index << ". [" << result::FindingStatusName(f.status) << "] " << f.cause << "  (score "
      << Number(std::round(f.Score() * 1000) / 1000) << ")\n";
  out << "   " << f.summary << "\n";
  for (const result::Evidence& e : f.evidence) {
    out << "     - " << e.label << ": " << Number(e.value) << (e.unit.empty() ? "" : " " + e.unit) << "\n";
  }
  WriteAbs(f, out);
  if (!f.fix.empty()) out << "   Fix: " << f.fix << "\n";
  if (f.status == FindingStatus::kSuspected && !f.confirm_command.empty()) {
    out << "   Confirm with: " << f.confirm_command << "\n";
  }
}

}  // namespace

std::string FormatFindings(const result::Diagnosis& d) {
  std::ostringstream out;
  out << "\n== Diagnosis: " << NameOf(result::kVerdictNames, d.verdict) << " ==\n";
  if (d.verdict == Verdict::kNoGrowth) {
    out << "No series grows with the group count beyond its noise";
    if (!d.fits.empty()) out << " (" << d.fits.size() << " series fitted)";
    out << ".\n";
  } else if (d.verdict == Verdict::kInsufficientData) {
    out << "Not enough group counts to fit growth: sweep at least two (e.g. --groups 1..8).\n";
  } else if (d.findings.empty()) {
    out << "Time grows with the group count, but no known cause matches the data; see the fits.\n";
  }
  int i = 0;
  for (const Finding& f : d.findings) WriteFinding(++i, f, out);
  if (!d.excluded.empty()) {
    out << "Left out (wrong results, named above as errors):";
    for (const std::string& id : d.excluded) out << " " << id;
    out << "\n";
  }
  if (d.noise_floor && d.noise_floor->replicate_pairs > 0) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "Point noise: %d pair(s) of points that measured one configuration twice differed by %.1f%% "
                  "(one point, rms); each point's noise was taken as at least %.1f%% of its value.\n",
                  d.noise_floor->replicate_pairs, 100 * d.noise_floor->replicate_relative_sd,
                  100 * d.noise_floor->relative);
    out << line;
  }
  if (!d.ruled_out.empty()) {
    out << "Ruled out by an A/B in this sweep:\n";
    for (const Finding& f : d.ruled_out) out << "   - " << f.cause << ": " << f.summary << "\n";
  }
  return out.str();
}

}  // namespace commbench
