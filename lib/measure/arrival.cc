#include "lib/measure/arrival.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <queue>

namespace commbench {

using result::RankSamples;

namespace {

// One clock for all: every rank recorded an arrival per sample, and all ran on one host.
bool OneClock(const std::vector<const RankSamples*>& ranks) {
  for (const RankSamples* r : ranks) {
    if (r->entry_ns.size() != r->samples_us.size() || r->host != ranks.front()->host) return false;
  }
  return true;
}

int64_t Ns(double us) { return std::llround(us * 1000); }

}  // namespace

GroupArrivals ComputeGroupArrivals(const std::vector<const RankSamples*>& members) {
  GroupArrivals out;
  if (members.empty()) return out;
  size_t n = members.front()->samples_us.size();
  for (const RankSamples* r : members) n = std::min(n, r->samples_us.size());
  out.method = OneClock(members) ? result::SkewMethod::kClock : result::SkewMethod::kDurations;
  out.transfer_us.reserve(n);
  out.skew_us.reserve(n);
  std::vector<int64_t> last_count(members.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    double shortest = members.front()->samples_us[i], longest = shortest;
    int64_t first = INT64_MAX, last = INT64_MIN;
    size_t shortest_at = 0, last_at = 0;
    for (size_t m = 0; m < members.size(); ++m) {
      const RankSamples* r = members[m];
      if (r->samples_us[i] < shortest) shortest_at = m;
      shortest = std::min(shortest, r->samples_us[i]);
      longest = std::max(longest, r->samples_us[i]);
      if (out.method == result::SkewMethod::kClock) {
        const int64_t arrival = r->start_ns + r->entry_ns[i];
        first = std::min(first, arrival);
        if (arrival > last) last_at = m;
        last = std::max(last, arrival);
      }
    }
    ++last_count[out.method == result::SkewMethod::kClock ? last_at : shortest_at];
    out.transfer_us.push_back(shortest);
    out.skew_us.push_back(out.method == result::SkewMethod::kClock ? static_cast<double>(last - first) * 1e-3
                                                                   : longest - shortest);
  }
  if (n > 0 && members.size() > 1) {
    const auto top = std::max_element(last_count.begin(), last_count.end());
    out.last_member = static_cast<int>(top - last_count.begin());
    out.last_share = static_cast<double>(*top) / static_cast<double>(n);
  }
  return out;
}

int64_t UnionLength(std::vector<std::pair<int64_t, int64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  int64_t total = 0;
  bool open = false;
  int64_t begin = 0, end = 0;
  for (const auto& [b, e] : intervals) {
    if (e <= b) continue;
    if (open && b <= end) {
      end = std::max(end, e);
      continue;
    }
    if (open) total += end - begin;
    begin = b;
    end = e;
    open = true;
  }
  if (open) total += end - begin;
  return total;
}

std::optional<double> BusyUnionS(const std::vector<RankSamples>& ranks) {
  if (ranks.empty()) return std::nullopt;
  std::vector<const RankSamples*> all;
  for (const RankSamples& r : ranks) all.push_back(&r);
  if (!OneClock(all)) return std::nullopt;
  // Each rank's iterations follow one another, so its intervals come sorted: merging the ranks' streams keeps
  // one cursor per rank in memory, not every interval (128 ranks x 100,000 iterations would be 200 MB).
  using Cursor = std::pair<int64_t, size_t>;  // (begin of the rank's next interval, rank)
  std::priority_queue<Cursor, std::vector<Cursor>, std::greater<Cursor>> next;
  std::vector<size_t> at(ranks.size(), 0);
  auto begin_of = [&ranks](size_t r, size_t i) { return ranks[r].start_ns + ranks[r].entry_ns[i]; };
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!ranks[r].samples_us.empty()) next.emplace(begin_of(r, 0), r);
  }
  if (next.empty()) return std::nullopt;
  int64_t total = 0, open_begin = next.top().first, open_end = open_begin;
  while (!next.empty()) {
    const auto [begin, r] = next.top();
    next.pop();
    const size_t i = at[r]++;
    const int64_t end = begin + Ns(ranks[r].samples_us[i]);
    if (begin > open_end) {
      total += open_end - open_begin;
      open_begin = begin;
      open_end = end;
    } else {
      open_end = std::max(open_end, end);
    }
    if (at[r] < ranks[r].samples_us.size()) next.emplace(begin_of(r, at[r]), r);
  }
  total += open_end - open_begin;
  return static_cast<double>(total) * 1e-9;
}

}  // namespace commbench
