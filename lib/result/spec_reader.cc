#include "lib/result/spec_reader.h"

#include <nlohmann/json.hpp>

#include "lib/core/axes.h"
#include "lib/result/json_reader.h"

namespace commbench::result {
namespace {

using nlohmann::json;

std::vector<uint64_t> Unsigned(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

// One name at `key`, parsed by `parse`; `*value` keeps its default when the key is absent.
template <typename E, typename Parse>
void OptionalName(ObjectReader& in, const char* key, Parse parse, E* value) {
  if (!in.Has(key)) return;
  auto parsed = parse(in.String(key), "unknown value");
  if (parsed.ok()) {
    *value = *parsed;
  } else {
    in.errors()->Add(in.PathOf(key), parsed.status().message());
  }
}

void ReadAxes(ObjectReader& in, SweepSpec* s) {
  s->backends = in.Strings("backends");
  s->ops = in.Strings("ops");
  s->algos = in.Strings("algos");
  s->dtypes = in.Strings("dtypes");
  s->reduces = in.Strings("reduces");
  s->sizes = Unsigned(in.Ints("sizes", 0));
  s->groups = in.Ints("groups", 1);
  s->group_sizes = in.Ints("group_sizes", 1);
  s->syncs = in.Names<Sync>("syncs", ParseSync);
  // Optional: files written before these axes existed ran their defaults.
  OptionalName(in, "in_place", ParseInPlace, &s->in_place);
  if (in.Has("concurrencies")) s->concurrencies = in.Names<Concurrency>("concurrencies", ParseConcurrency);
  if (in.Has("ranks_per_process")) s->ranks_per_process = in.Ints("ranks_per_process", 1);
  if (in.Has("pins")) s->pins = in.Names<Pin>("pins", ParsePin);
  if (in.Has("cpus")) s->cpus = in.Strings("cpus");
  if (in.Has("streams")) s->streams = in.Names<StreamKind>("streams", ParseStreamKind);
  if (in.Has("h2ds")) s->h2ds = in.Names<H2dKind>("h2ds", ParseH2dKind);
  if (in.Has("h2d_bytes")) s->h2d_bytes = in.Unsigned("h2d_bytes");
  if (in.Has("graphs")) s->graphs = in.Names<bool>("graphs", ParseGraph);
}

void ReadSettings(ObjectReader& in, SweepSpec* s) {
  s->iters = in.Int("iters", 0);
  s->warmup = in.Int("warmup", 0);
  s->time_budget_s = in.Number("time_budget_s", 0);
  if (in.Has("time_budget_above")) {  // absent before --time-budget-above, and when not given
    const auto above = in.Array("time_budget_above");
    for (size_t i = 0; i < above.size(); ++i) {
      ObjectReader b(*above[i], ObjectReader::PathOf(in.PathOf("time_budget_above"), i), in.errors());
      s->time_budget_above[b.Unsigned("bytes")] = b.Number("seconds", 0);
    }
  }
  s->timeout_s = in.Number("timeout_s", 0);
  s->target_ci = in.NumberOr("target_ci", s->target_ci);
  s->check_rate = in.NumberOr("check_rate", 1.0 / 64);  // absent before it was a flag; those runs checked 1/64
  if (in.Has("min_iters")) s->min_iters = in.Int("min_iters", 0);
  if (in.Has("max_iters")) s->max_iters = in.Int("max_iters", 0);
  if (in.Has("sample_cap")) s->sample_cap = in.Int("sample_cap", 0);
  if (in.Has("repeats")) s->repeats = in.Int("repeats", 1);  // absent before repeats existed: one
  if (in.Has("max_world")) s->max_world = in.Int("max_world", 1);
  if (in.Has("host")) s->host = in.String("host");
  if (in.Has("iface")) s->iface = in.String("iface");
  OptionalName(in, "launcher", ParseLauncher, &s->launcher);
  OptionalName(in, "group_by", ParseGroupBy, &s->group_by);
  if (in.Has("test_only_slow_rank")) s->test_only_slow_rank = in.String("test_only_slow_rank");
  if (in.Has("test_only_late_rank")) s->test_only_late_rank = in.String("test_only_late_rank");
  if (in.Has("test_only_hang_rank")) s->test_only_hang_rank = in.String("test_only_hang_rank");
  if (in.Has("test_only_uniform_slowdown")) s->test_only_uniform_slowdown = in.Number("test_only_uniform_slowdown", 0);
}

// --explain's factors: [[axis, value], ...] per factor.
void ReadExplainFactors(ObjectReader& in, SweepSpec* s) {
  if (!in.Has("explain_factors")) return;
  const auto factors = in.Array("explain_factors");
  for (size_t i = 0; i < factors.size(); ++i) {
    const std::string path = ObjectReader::PathOf(in.PathOf("explain_factors"), i);
    auto f = ReadExplainFactor(*factors[i]);
    if (!f.ok()) {
      in.errors()->Add(path, f.status().message());
      return;
    }
    s->explain_factors.push_back(std::move(*f));
  }
}

}  // namespace

StatusOr<SweepSpec> ReadSpec(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  SweepSpec s;
  ReadAxes(in, &s);
  ReadSettings(in, &s);
  ReadExplainFactors(in, &s);
  RETURN_IF_ERROR(errors.status());
  return s;
}

StatusOr<SweepSpec::ExplainFactor> ReadExplainFactor(const json& j) {
  SweepSpec::ExplainFactor f;
  if (!j.is_array()) return InvalidArgument("expected an array");
  for (const json& pair : j) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string()) {
      return InvalidArgument("expected [axis, value] pairs");
    }
    const std::string axis = pair[0].get<std::string>(), value = pair[1].get<std::string>();
    Status ok;
    auto add = [&](auto parsed, auto* list) {
      if (parsed.ok())
        list->push_back(*parsed);
      else
        ok = parsed.status();
    };
    if (axis == "sync")
      add(ParseSync(value, "unknown sync"), &f.syncs);
    else if (axis == "pin")
      add(ParsePin(value, "unknown pin"), &f.pins);
    else if (axis == "cpus")
      f.cpus.push_back(value);
    else if (axis == "stream")
      add(ParseStreamKind(value, "unknown stream"), &f.streams);
    else if (axis == "h2d")
      add(ParseH2dKind(value, "unknown h2d"), &f.h2ds);
    else if (axis == "concurrency")
      add(ParseConcurrency(value, "unknown concurrency"), &f.concurrencies);
    else
      ok = InvalidArgument("unknown axis '" + axis + "'");
    if (!ok.ok()) return ok;
  }
  return f;
}

}  // namespace commbench::result
