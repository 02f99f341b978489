#include "lib/traffic/step_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace commbench {
namespace traffic {
namespace {

std::string Grouped(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

StatusOr<uint64_t> ParseParamCount(std::string_view text, std::string_view flag) {
  auto bad = [&] {
    return InvalidArgument(std::string(flag) + " '" + std::string(text) +
                           "' (accepted: a positive parameter count, e.g. 1300000000, 1.3B, 350M, 125K)");
  };
  if (text.empty()) return bad();
  double scale = 1;
  std::string_view number = text;
  // Hand-aligned: clang-format would break these short lines apart.
  // clang-format off
  switch (text.back()) {
    case 'K': case 'k': scale = 1e3; break;
    case 'M': case 'm': scale = 1e6; break;
    case 'B': case 'b': case 'G': case 'g': scale = 1e9; break;
    case 'T': case 't': scale = 1e12; break;
    default: break;
  }
  // clang-format on
  if (scale != 1) number.remove_suffix(1);
  if (number.empty() || std::count(number.begin(), number.end(), '.') > 1) return bad();
  for (char c : number) {
    if (!(c == '.' || (c >= '0' && c <= '9'))) return bad();
  }
  const double value = std::stod(std::string(number)) * scale;
  if (!(value >= 1) || value > 1e15 || std::fabs(value - std::round(value)) > 1e-6) return bad();
  return static_cast<uint64_t>(std::llround(value));
}

std::string DecimalBytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  std::string unit = b >= 1e9   ? Fixed(b / 1e9, 2) + " GB"
                     : b >= 1e6 ? Fixed(b / 1e6, 2) + " MB"
                     : b >= 1e3 ? Fixed(b / 1e3, 2) + " kB"
                                : "";
  return unit.empty() ? Grouped(bytes) + " B" : unit + " (" + Grouped(bytes) + " B)";
}

std::string StepToText(const StepRequest& r, const StepTraffic& step, const StepLabel& label) {
  std::string out = "gradients: " + Grouped(r.params) + " " + label.dtype +
                    " params = " + DecimalBytes(step.gradient_bytes) + ", allreduced over " + std::to_string(r.world) +
                    " ranks with " + r.backend + (label.transport.empty() ? "" : " (" + label.transport + ")") + "\n";
  out += "buckets: ";
  for (size_t i = 0; i < step.groups.size(); ++i) {
    const BucketGroup& g = step.groups[i];
    out += (i ? " + " : "") + std::to_string(g.buckets) + " x " + DecimalBytes(g.count * r.element_size) + " (" +
           g.algo + ")";
  }
  out += "\n";
  uint64_t lo = UINT64_MAX, hi = 0, rlo = UINT64_MAX, rhi = 0, messages = 0;
  for (const RankTraffic& t : step.ranks) {
    lo = std::min(lo, t.sent_bytes), hi = std::max(hi, t.sent_bytes);
    rlo = std::min(rlo, t.recv_bytes), rhi = std::max(rhi, t.recv_bytes);
    messages = std::max(messages, t.sent_messages + t.control_messages);
  }
  const double grad = static_cast<double>(std::max<uint64_t>(step.gradient_bytes, 1));
  out += "each rank sends    " + DecimalBytes(hi) + " per step = " + Fixed(static_cast<double>(hi) / grad, 3) +
         " x the gradients" + (lo != hi ? " (the least: " + DecimalBytes(lo) + ")" : "") + "\n";
  out += "each rank receives " + DecimalBytes(rhi) + " per step" +
         (rlo != rhi ? " (the least: " + DecimalBytes(rlo) + ")" : "") + "\n";
  const double textbook = r.world > 1 ? 2.0 * (r.world - 1) / r.world : 0;
  out += "textbook ring allreduce: 2(n-1)/n = " + Fixed(textbook, 3) +
         " x the gradients; messages per rank: " + Grouped(messages);
  if (step.messages_framing_bytes > 0) out += ", framing " + DecimalBytes(step.messages_framing_bytes);
  out += "\n";
  for (const BucketGroup& g : step.groups) {
    if (!g.model.exact) out += "model: " + g.model.note + "\n";
  }
  if (step.exact) out += "model: exact for " + r.backend + " (payload bytes, without TCP/IP headers)\n";
  return out;
}

}  // namespace traffic
}  // namespace commbench
