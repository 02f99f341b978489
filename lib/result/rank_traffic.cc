#include "lib/result/rank_traffic.h"

#include <nlohmann/json.hpp>

namespace commbench::result {

using nlohmann::json;

namespace {
// -1 (not measured, no model) is written as null; the per-op figures and ratios are derived, for readers.
json OrNull(double v) { return v < 0 ? json(nullptr) : json(v); }
}  // namespace

json RankTrafficToJson(const RankTraffic& t) {
  return json{{"source", t.source},
              {"ops", t.ops},
              {"sent_bytes", OrNull(t.sent_bytes)},
              {"recv_bytes", OrNull(t.recv_bytes)},
              {"sent_bytes_per_op", OrNull(t.SentPerOp())},
              {"recv_bytes_per_op", OrNull(t.RecvPerOp())},
              {"model_sent_bytes_per_op", OrNull(t.model_sent_bytes_per_op)},
              {"model_recv_bytes_per_op", OrNull(t.model_recv_bytes_per_op)},
              {"model", t.model_exact ? "exact" : "textbook"},
              {"model_framing_bytes_per_op", t.model_framing_bytes_per_op},
              {"sent_ratio", OrNull(t.SentRatio())},
              {"recv_ratio", OrNull(t.RecvRatio())}};
}

RankTraffic ReadRankTraffic(ObjectReader in) {
  RankTraffic t;
  t.source = in.String("source");
  t.ops = in.Int("ops", 0);
  auto number = [&](const char* key) { return in.Has(key) ? in.NullableNumber(key).value_or(-1) : -1; };
  t.sent_bytes = number("sent_bytes");
  t.recv_bytes = number("recv_bytes");
  t.model_sent_bytes_per_op = number("model_sent_bytes_per_op");
  t.model_recv_bytes_per_op = number("model_recv_bytes_per_op");
  t.model_exact = in.Has("model") && in.String("model") == "exact";
  t.model_framing_bytes_per_op = in.Has("model_framing_bytes_per_op") ? in.Number("model_framing_bytes_per_op", 0) : 0;
  return t;
}

StatusOr<RankTraffic> ReadRankTraffic(const json& j, const std::string& path) {
  SchemaErrors errors;
  RankTraffic t = ReadRankTraffic(ObjectReader(j, path, &errors));
  RETURN_IF_ERROR(errors.status());
  return t;
}

}  // namespace commbench::result
