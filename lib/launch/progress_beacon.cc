#include "lib/launch/progress_beacon.h"

#include <nlohmann/json.hpp>

namespace commbench {
std::string ProgressToJson(const ProgressSnapshot& s) {
  return nlohmann::json{{"rank", s.rank},
                        {"pid", s.pid},
                        {"host", s.host},
                        {"point", s.point_index},
                        {"phase", static_cast<int>(s.phase)},
                        {"started", s.started},
                        {"completed", s.completed}}
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

ProgressSnapshot ProgressFromJson(const std::string& text) {
  ProgressSnapshot s;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return s;
  try {
    s.rank = j.at("rank").get<int>();
    s.host = j.at("host").get<std::string>();
    s.point_index = j.at("point").get<int>();
    s.phase = static_cast<ProgressPhase>(j.at("phase").get<int>());
    s.started = j.at("started").get<int64_t>();
    s.completed = j.at("completed").get<int64_t>();
    s.pid = j.at("pid").get<int>();  // last: a partly read beat stays "none"
  } catch (const nlohmann::json::exception&) {
    s.pid = 0;
  }
  return s;
}

ProgressBeacon::ProgressBeacon(Store* store, std::string prefix, int rank, std::string page_path,
                               Clock::duration period)
    : store_(store),
      chain_(std::move(prefix) + std::to_string(rank) + "/"),
      page_path_(std::move(page_path)),
      period_(period) {}

bool ProgressBeacon::Tick(Clock::time_point now) {
  if (now < next_) return false;
  next_ = now + period_;
  auto page = ReadProgress(page_path_);
  if (!page.ok() || SameProgress(*page, last_)) return false;
  last_ = *page;
  (void)store_->Set(chain_ + std::to_string(published_++), [&] {
    const std::string text = ProgressToJson(last_);
    return std::vector<char>(text.begin(), text.end());
  }());
  return true;
}

BeatWatch::BeatWatch(Store* store, std::string prefix, int world, Clock::time_point start)
    : store_(store), prefix_(std::move(prefix)), ranks_(static_cast<size_t>(world)) {
  for (Rank& r : ranks_) r.changed = start;
}

bool BeatWatch::Poll(Clock::time_point now) {
  bool any = false;
  for (size_t r = 0; r < ranks_.size(); ++r) {
    Rank& rank = ranks_[r];
    while (true) {
      auto v = store_->Get(prefix_ + std::to_string(r) + "/" + std::to_string(rank.next), std::chrono::milliseconds(1));
      if (!v.ok()) break;
      const ProgressSnapshot s = ProgressFromJson(std::string(v->begin(), v->end()));
      ++rank.next;
      if (s.pid == 0) continue;
      rank.last = s;
      rank.changed = now;
      any = true;
    }
  }
  return any;
}

double BeatWatch::IdleSeconds(int rank, Clock::time_point now) const {
  return std::chrono::duration<double>(now - ranks_[static_cast<size_t>(rank)].changed).count();
}

bool BeatWatch::AnyStuckInsideAnOp(Clock::time_point now, std::chrono::duration<double> limit) const {
  for (const Rank& r : ranks_) {
    if (InsideAnOp(r.last) && now - r.changed > limit) return true;
  }
  return false;
}

}  // namespace commbench
