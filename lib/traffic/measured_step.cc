#include "lib/traffic/measured_step.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "lib/traffic/step_text.h"

namespace commbench {
namespace traffic {
namespace {

std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* format, ...) {
  char buf[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

// Bytes in decimal units, short: "4.55 GB", "-" when not measured.
std::string Short(double bytes) {
  if (bytes < 0) return "-";
  if (bytes >= 1e9) return Format("%.3f GB", bytes / 1e9);
  if (bytes >= 1e6) return Format("%.3f MB", bytes / 1e6);
  if (bytes >= 1e3) return Format("%.3f kB", bytes / 1e3);
  return Format("%.0f B", bytes);
}

// "246.4 ms", "812.0 us", "23.90 s".
std::string Seconds(double s) {
  if (s >= 1) return Format("%.2f s", s);
  if (s >= 1e-3) return Format("%.1f ms", s * 1e3);
  return Format("%.1f us", s * 1e6);
}

std::string Ratio(double measured, double model) {
  return measured < 0 || model <= 0 ? "-" : Format("%.4f", measured / model);
}

double Max(const std::vector<double>& v) { return v.empty() ? -1 : *std::max_element(v.begin(), v.end()); }

}  // namespace

StatusOr<std::vector<MeasuredRankStep>> SumMeasuredStep(const StepTraffic& step,
                                                        const std::vector<BucketMeasure>& measured, int world) {
  if (measured.size() != step.groups.size()) {
    return InvalidArgument("measured " + std::to_string(measured.size()) + " bucket sizes of " +
                           std::to_string(step.groups.size()));
  }
  std::vector<MeasuredRankStep> ranks(static_cast<size_t>(world));
  for (size_t g = 0; g < measured.size(); ++g) {
    const BucketMeasure& m = measured[g];
    const size_t n = static_cast<size_t>(world);
    if (m.sent_per_op.size() != n || m.recv_per_op.size() != n || m.time_us_per_op.size() != n) {
      return InvalidArgument("bucket size " + std::to_string(g) + ": figures for " +
                             std::to_string(m.time_us_per_op.size()) + " ranks of " + std::to_string(world));
    }
    const double buckets = step.groups[g].buckets;
    for (size_t r = 0; r < n; ++r) {
      auto add = [&](double per_op, double* sum) {
        *sum = per_op < 0 || (g > 0 && *sum < 0) ? -1 : std::max(*sum, 0.0) + per_op * buckets;
      };
      add(m.sent_per_op[r], &ranks[r].sent_bytes);
      add(m.recv_per_op[r], &ranks[r].recv_bytes);
      ranks[r].time_s += m.time_us_per_op[r] * 1e-6 * buckets;
    }
  }
  return ranks;
}

std::string MeasuredStepToText(const StepRequest& r, const StepTraffic& step,
                               const std::vector<BucketMeasure>& measured, const std::vector<MeasuredRankStep>& ranks,
                               const MeasureLabel& label) {
  std::string out = "\nmeasured: " + std::to_string(r.world) + " " + label.where + ", " + label.backend + ", " +
                    label.dtype + ", one allreduce point per bucket size\n";
  out += Format("  %-26s %-16s %14s %14s %8s %14s\n", "bucket", "algo (ran)", "sent/op (max)", "model", "x-model",
                "time/op (max)");
  for (size_t g = 0; g < step.groups.size(); ++g) {
    const BucketGroup& group = step.groups[g];
    const BucketMeasure& m = measured[g];
    double model = 0;
    for (const RankTraffic& t : group.model.ranks) model = std::max(model, static_cast<double>(t.sent_bytes));
    const std::string bucket = std::to_string(group.buckets) + " x " +
                               Short(static_cast<double>(group.count) * static_cast<double>(r.element_size));
    const double sent = Max(m.sent_per_op);
    out += Format("  %-26s %-16s %14s %14s %8s %14s\n", bucket.c_str(), m.algo.c_str(), Short(sent).c_str(),
                  Short(model).c_str(), Ratio(sent, model).c_str(), Seconds(Max(m.time_us_per_op) * 1e-6).c_str());
    if (m.algo != group.algo) out += "    note: the model is " + group.algo + "'s, " + m.algo + " ran\n";
  }
  out += "per step, each rank (the buckets one after another, as isolated operations: no overlap with compute):\n";
  out += Format("  %4s %14s %14s %8s %14s %14s %8s %11s\n", "rank", "sends", "model", "x-model", "receives", "model",
                "x-model", "time");
  for (size_t k = 0; k < ranks.size(); ++k) {
    const double ms = static_cast<double>(step.ranks[k].sent_bytes);
    const double mr = static_cast<double>(step.ranks[k].recv_bytes);
    out += Format("  %4zu %14s %14s %8s %14s %14s %8s %11s\n", k, Short(ranks[k].sent_bytes).c_str(), Short(ms).c_str(),
                  Ratio(ranks[k].sent_bytes, ms).c_str(), Short(ranks[k].recv_bytes).c_str(), Short(mr).c_str(),
                  Ratio(ranks[k].recv_bytes, mr).c_str(), Seconds(ranks[k].time_s).c_str());
  }
  bool unmeasured = false;
  for (const MeasuredRankStep& k : ranks) unmeasured = unmeasured || k.sent_bytes < 0 || k.recv_bytes < 0;
  if (unmeasured) out += "-: not measured on this transport (shared memory counts the bytes received only)\n";
  if (step.messages_framing_bytes > 0) {
    out += "x-model is measured over payload: it includes the backend's framing (" +
           DecimalBytes(step.messages_framing_bytes) + " per step on the busiest rank)\n";
  }
  return out;
}

}  // namespace traffic
}  // namespace commbench
