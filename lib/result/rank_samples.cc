#include "lib/result/rank_samples.h"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "lib/result/json_reader.h"
#include "lib/result/json_text.h"

namespace commbench::result {

using nlohmann::json;

std::string RankSamplesToJsonLine(const RankSamples& r) {
  json out{{"point_index", r.point_index},
           {"id", r.point_id},
           {"rank", r.rank},
           {"group", r.group},
           {"group_rank", r.group_rank},
           {"process_rank", r.process_rank},
           {"pid", r.pid},
           {"host", r.host},
           {"address", r.address},
           {"correct", r.correct},
           {"error", r.error},
           {"checked_iters", r.checked_iters},
           {"algo", r.algo},
           {"warmup", r.warmup},
           {"device_samples_us", r.device_samples_us},
           {"start_ns", r.start_ns},
           {"end_ns", r.end_ns},
           {"cpu_user_s", r.cpu_user_s},
           {"cpu_sys_s", r.cpu_sys_s},
           {"vol_ctx", r.vol_ctx},
           {"invol_ctx", r.invol_ctx},
           {"affinity", r.affinity},
           {"setup_s", r.setup_s}};
  // Communicator memory (issue 52): absent where not recorded, so older lines read alike.
  if (r.comm_rss_bytes >= 0) out["comm_rss_bytes"] = r.comm_rss_bytes;
  if (r.comm_device_bytes >= 0) out["comm_device_bytes"] = r.comm_device_bytes;
  if (r.transport != Transport::kUnknown)
    out["transport"] = Name(r.transport);  // absent where not reported, so older lines read alike
  if (r.runqueue_wait_s >= 0) out["runqueue_wait_s"] = r.runqueue_wait_s;  // likewise
  if (r.migrations >= 0) out["migrations"] = r.migrations;                 // likewise
  if (r.cpu_quota > 0) out["cpu_quota"] = r.cpu_quota;                     // likewise
  if (r.throttled_share >= 0) out["throttled_share"] = r.throttled_share;  // likewise
  if (r.traffic) out["traffic"] = RankTrafficToJson(*r.traffic);           // likewise
  if (r.phases.end_ns != 0) out["phases"] = RankPhasesToJson(r.phases);    // likewise
  // The samples last, as whole nanoseconds written straight into the line: a rank writes its line between two
  // points, where every rank of the next one waits for it, and 100,000 samples as a JSON array of doubles took
  // 9-11 ms to build and write, as integers spliced in ~1 ms (a clock's nanosecond is all a sample holds).
  std::string line = DumpJson(out);
  line.pop_back();                   // the closing brace
  line.append(",\"samples_ns\":[");  // after the other fields, never alone
  char digits[24];
  for (size_t i = 0; i < r.samples_us.size(); ++i) {
    if (i > 0) line.push_back(',');
    const auto end = std::to_chars(digits, digits + sizeof(digits), std::llround(r.samples_us[i] * 1000)).ptr;
    line.append(digits, end);
  }
  line.push_back(']');
  // Arrivals likewise (issue 52), only where recorded.
  if (!r.entry_ns.empty()) {
    line.append(",\"entry_ns\":[");
    for (size_t i = 0; i < r.entry_ns.size(); ++i) {
      if (i > 0) line.push_back(',');
      const auto end = std::to_chars(digits, digits + sizeof(digits), r.entry_ns[i]).ptr;
      line.append(digits, end);
    }
    line.push_back(']');
  }
  line.push_back('}');
  return line;
}

StatusOr<RankSamples> ReadRankSamples(const json& j) {
  SchemaErrors errors;
  ObjectReader in(j, "rank line", &errors);
  RankSamples r;
  r.point_index = in.SmallInt("point_index", 0);
  r.point_id = in.String("id");
  r.rank = in.SmallInt("rank", 0);
  r.group = in.SmallInt("group", 0);
  r.group_rank = in.SmallInt("group_rank", 0);
  r.process_rank = in.Has("process_rank") ? in.SmallInt("process_rank", -1) : -1;
  r.pid = in.SmallInt("pid", 0);
  r.host = in.Has("host") ? in.String("host") : "";
  r.address = in.Has("address") ? in.String("address") : "";
  if (in.Has("transport")) r.transport = in.Parsed("transport", ParseTransport, Transport::kUnknown);
  r.correct = in.Bool("correct");
  r.error = in.String("error");
  r.checked_iters = in.Has("checked_iters") ? in.Int("checked_iters", 0) : 0;
  r.algo = in.String("algo");
  r.warmup = in.Int("warmup", 0);
  // Whole nanoseconds since the rank line carried them (samples_ns); microseconds before.
  if (in.Has("samples_us") && !in.Has("samples_ns")) {
    r.samples_us = in.Numbers("samples_us");
  } else {
    r.samples_us = in.Numbers("samples_ns");
    for (double& v : r.samples_us) v /= 1000;  // the double nearest the decimal microseconds
  }
  r.device_samples_us = in.Numbers("device_samples_us");
  if (in.Has("entry_ns")) {  // absent in lines written before arrivals were recorded
    r.entry_ns = in.Ints("entry_ns", 0);
  }
  r.start_ns = in.Int("start_ns");
  r.end_ns = in.Int("end_ns");
  r.cpu_user_s = in.Number("cpu_user_s", 0);
  r.cpu_sys_s = in.Number("cpu_sys_s", 0);
  r.vol_ctx = in.Number("vol_ctx", 0);
  r.invol_ctx = in.Number("invol_ctx", 0);
  r.runqueue_wait_s = in.Has("runqueue_wait_s") ? in.Number("runqueue_wait_s", 0) : -1;
  r.migrations = in.Has("migrations") ? in.Int("migrations", 0) : -1;
  r.cpu_quota = in.Has("cpu_quota") ? in.Number("cpu_quota", 0) : 0;
  r.throttled_share = in.Has("throttled_share") ? in.Number("throttled_share", 0) : -1;
  r.affinity = in.String("affinity");
  r.setup_s = in.Number("setup_s", 0);
  r.comm_rss_bytes = in.Has("comm_rss_bytes") ? in.Int("comm_rss_bytes", 0) : -1;
  r.comm_device_bytes = in.Has("comm_device_bytes") ? in.Int("comm_device_bytes", 0) : -1;
  RETURN_IF_ERROR(errors.status());
  if (in.Has("traffic")) {
    ASSIGN_OR_RETURN(r.traffic, ReadRankTraffic(j.at("traffic"), "rank line.traffic"));
  }
  if (in.Has("phases")) {
    ASSIGN_OR_RETURN(r.phases, ReadRankPhases(j.at("phases"), "rank line.phases"));
  }
  return r;
}

StatusOr<RankSamples> ParseRankSamplesLine(const std::string& line) {
  auto j = ParseJsonLine(line);
  if (!j.ok()) {
    return InvalidArgument("rank line: " + j.status().message() + " (" + std::to_string(line.size()) + " bytes)");
  }
  return ReadRankSamples(*j);
}

}  // namespace commbench::result
