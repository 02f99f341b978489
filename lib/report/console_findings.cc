#include "lib/report/console_findings.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "lib/core/ranges.h"

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
        << Number(a.g_hi) << "): growth " << Number(a.growth_a_us) << " -> " << Number(a.growth_b_us) << " us, cut "
        << Percent(a.cut) << " (95% interval " << Percent(a.cut_ci95.lo) << " to " << Percent(a.cut_ci95.hi) << ", "
        << (a.pairs > 0 ? std::to_string(a.pairs) + " interleaved rounds" : "sweep order") << "): "
        << (a.supports_cause.empty() ? NameOf(result::kAbOutcomeNames, a.outcome)
                                     : "confirms " + a.supports_cause + " instead")
        << (a.note.empty() ? "" : " (" + a.note + ")") << "\n";
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

// "Point noise: points that measured one configuration twice differed by 6.1% at 1M (2 pairs), ..."
std::string NoiseSentence(const result::NoiseFloor& n) {
  std::string sizes;
  for (const auto& [bytes, r] : n.by_bytes) {
    std::string size = FormatBytes(static_cast<uint64_t>(bytes));  // as --sizes writes it: 400, 64K, 1M
    if (std::isdigit(static_cast<unsigned char>(size.back()))) size += " B";
    char one[96];
    std::snprintf(one, sizeof one, "%s%.1f%% at %s (%d pair%s)", sizes.empty() ? "" : ", ", 100 * r.relative_sd,
                  size.c_str(), r.pairs, r.pairs == 1 ? "" : "s");
    sizes += one;
  }
  char tail[96];
  std::snprintf(tail, sizeof tail,
                " (one point, rms); each point's noise was taken as at least its size's, and %.0f%%.\n",
                100 * n.default_relative);
  return "Point noise: points that measured one configuration twice differed by " + sizes + tail;
}

}  // namespace

std::string FormatFindings(const result::Diagnosis& d) {
  std::ostringstream out;
  out << "\n== Diagnosis: " << NameOf(result::kVerdictNames, d.verdict) << " ==\n";
  if (d.verdict == Verdict::kNotALine) {
    out << "No series grows steadily with the group count, and some are not a line:\n";
    for (const std::string& caveat : d.caveats) out << caveat << "\n";
  } else if (d.verdict == Verdict::kNoGrowth) {
    out << "No series grows with the group count beyond its noise";
    if (!d.fits.empty()) out << " (" << d.fits.size() << " series fitted)";
    out << ".\n";
    for (const std::string& caveat : d.caveats) out << caveat << "\n";
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
  if (d.noise_floor && d.noise_floor->all.pairs > 0) out << NoiseSentence(*d.noise_floor);
  if (!d.ruled_out.empty()) {
    out << "Ruled out by an A/B in this sweep:\n";
    for (const Finding& f : d.ruled_out) out << "   - " << f.cause << ": " << f.summary << "\n";
  }
  return out.str();
}

}  // namespace commbench
