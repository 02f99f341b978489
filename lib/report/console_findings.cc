#include "lib/report/console_findings.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace commbench {
namespace {

using nlohmann::json;

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Number(const json& v) {
  if (!v.is_number()) return "n/a";
  double d = v.get<double>();
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

void Evidence(const json& f, std::ostringstream& out) {
  if (!f.contains("evidence") || !f["evidence"].is_array()) return;
  for (const json& e : f["evidence"]) {
    if (!e.is_object()) continue;
    std::string unit = Str(e, "unit");
    out << "     - " << Str(e, "label") << ": " << Number(e.value("value", json())) << (unit.empty() ? "" : " " + unit)
        << "\n";
  }
}

}  // namespace

std::string FormatFindings(const json& d) {
  std::ostringstream out;
  std::string verdict = Str(d, "verdict");
  if (verdict.empty()) verdict = "not diagnosed";
  out << "\n== Diagnosis: " << verdict << " ==\n";
  const json empty = json::array();
  const json& findings = d.contains("findings") && d["findings"].is_array() ? d["findings"] : empty;
  if (verdict == "no growth") {
    size_t n = d.contains("fits") && d["fits"].is_array() ? d["fits"].size() : 0;
    out << "No series grows with the group count beyond its noise";
    if (n > 0) out << " (" << n << " series fitted)";
    out << ".\n";
  } else if (verdict == "insufficient data") {
    out << "Not enough group counts to fit growth: sweep at least two (e.g. --groups 1..8).\n";
  } else if (findings.empty() && verdict == "growth") {
    out << "Time grows with the group count, but no known cause matches the data; see the fits.\n";
  }
  int i = 0;
  for (const json& f : findings) {
    if (!f.is_object()) continue;
    std::string status = Str(f, "status");
    out << ++i << ". [" << status << "] " << Str(f, "cause") << "  (score " << Number(f.value("score", json()))
        << ")\n";
    out << "   " << Str(f, "summary") << "\n";
    Evidence(f, out);
    if (!Str(f, "fix").empty()) out << "   Fix: " << Str(f, "fix") << "\n";
    if (status == "suspected" && !Str(f, "confirm_command").empty()) {
      out << "   Confirm with: " << Str(f, "confirm_command") << "\n";
    }
  }
  if (d.contains("ruled_out") && d["ruled_out"].is_array() && !d["ruled_out"].empty()) {
    out << "Ruled out by an A/B in this sweep:\n";
    for (const json& f : d["ruled_out"]) {
      if (f.is_object()) out << "   - " << Str(f, "cause") << ": " << Str(f, "summary") << "\n";
    }
  }
  return out.str();
}

}  // namespace commbench
