#include "lib/result/diagnosis.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>

#include "lib/result/json_reader.h"
#include "lib/result/point_result.h"

namespace commbench::result {

using nlohmann::json;

namespace {

// Huge values are whole units already; scaling them would overflow to infinity, which JSON cannot hold.
double Round(double v, double unit) {
  if (!std::isfinite(v)) return 0;
  return std::isfinite(v / unit) ? std::round(v / unit) * unit : v;
}

// The point keys that are not series axes: a fit covers every group count.
constexpr const char* kNotSeriesAxes[] = {"id", "groups", "world", "count"};

}  // namespace

json FitToJson(const Fit& f) {
  json j = PointAxesToJson(f.series);
  for (const char* key : kNotSeriesAxes) j.erase(key);
  j["groups"] = f.groups;
  j["p50_us"] = f.p50_us;
  j["slope_us_per_group"] = Round(f.slope_us_per_group, 1e-3);
  j["intercept_us"] = Round(f.intercept_us, 1e-3);
  j["r2"] = Round(f.r2, 1e-4);
  j["model"] = NameOf(kGrowthModelNames, f.model);
  if (f.model == GrowthModel::kStep || f.model == GrowthModel::kSaturation) j["change_point"] = f.change_point;
  j["level_before_us"] = Round(f.level_before_us, 1e-3);
  j["level_after_us"] = Round(f.level_after_us, 1e-3);
  j["growth_us"] = Round(f.growth_us, 1e-3);
  j["growth_fraction"] = Round(f.growth_fraction, 1e-4);
  j["grows"] = f.grows;
  j["noise_us"] = Round(f.noise_us, 1e-3);
  j["slope_vs_bytes"] = NameOf(kSlopeKindNames, f.slope_vs_bytes);
  j["bytes_share"] = Round(f.bytes_share, 1e-4);
  j["points"] = f.points;
  if (f.split) {  // issue 52
    j["split"] = {{"reading", NameOf(kGrowthReadingNames, f.split->reading)},
                  {"time_growth_us", Round(f.split->time_growth_us, 1e-3)},
                  {"transfer_first_us", Round(f.split->transfer_first_us, 1e-3)},
                  {"transfer_last_us", Round(f.split->transfer_last_us, 1e-3)},
                  {"skew_first_us", Round(f.split->skew_first_us, 1e-3)},
                  {"skew_last_us", Round(f.split->skew_last_us, 1e-3)},
                  {"transfer_growth_us", Round(f.split->transfer_growth_us, 1e-3)},
                  {"skew_growth_us", Round(f.split->skew_growth_us, 1e-3)}};
  }
  return j;
}

double NoiseFloor::For(int64_t bytes) const {
  auto own = by_bytes.find(bytes);
  const ReplicateNoise& r = own != by_bytes.end() && own->second.pairs > 0 ? own->second : all;
  return std::max(default_relative, r.relative_sd);
}

json NoiseFloorToJson(const NoiseFloor& n) {
  json sizes = json::array();
  for (const auto& [bytes, r] : n.by_bytes) {
    sizes.push_back({{"bytes", bytes}, {"pairs", r.pairs}, {"relative_sd", r.relative_sd}, {"floor", n.For(bytes)}});
  }
  return {{"default", n.default_relative},
          {"replicate_pairs", n.all.pairs},
          {"replicate_relative_sd", n.all.relative_sd},
          {"by_bytes", sizes}};
}

StatusOr<NoiseFloor> ReadNoiseFloor(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  NoiseFloor n;
  n.default_relative = in.Number("default", 0);
  n.all.pairs = in.SmallInt("replicate_pairs", 0);
  n.all.relative_sd = in.Number("replicate_relative_sd", 0);
  if (in.Has("by_bytes")) {
    const json& sizes = in.value().at("by_bytes");
    if (!sizes.is_array()) errors.Add(in.PathOf("by_bytes"), "expected an array");
    for (size_t i = 0; sizes.is_array() && i < sizes.size(); ++i) {
      ObjectReader size(sizes[i], ObjectReader::PathOf(in.PathOf("by_bytes"), i), &errors);
      const int64_t bytes = size.Int("bytes", 0);
      ReplicateNoise r;
      r.pairs = size.SmallInt("pairs", 0);
      r.relative_sd = size.Number("relative_sd", 0);
      n.by_bytes[bytes] = r;  // "floor" is derived: For(bytes)
    }
  }
  RETURN_IF_ERROR(errors.status());
  return n;
}

StatusOr<Fit> ReadFit(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  Fit f;
  for (int64_t g : in.Ints("groups", 1, INT_MAX)) f.groups.push_back(static_cast<int>(g));
  f.p50_us = in.Numbers("p50_us");
  f.slope_us_per_group = in.Number("slope_us_per_group");
  f.intercept_us = in.Number("intercept_us");
  f.r2 = in.Number("r2");
  // The schema requires the line; the model and what the rules read came later and are optional.
  if (in.Has("model")) f.model = in.Enum("model", kGrowthModelNames);
  if (f.model == GrowthModel::kStep || f.model == GrowthModel::kSaturation)
    f.change_point = in.NumberOr("change_point", 0);
  f.level_before_us = in.NumberOr("level_before_us", 0);
  f.level_after_us = in.NumberOr("level_after_us", 0);
  f.growth_us = in.NumberOr("growth_us", 0);
  f.growth_fraction = in.NumberOr("growth_fraction", 0);
  f.grows = in.BoolOr("grows", false);
  f.noise_us = in.NumberOr("noise_us", 0);
  if (in.Has("slope_vs_bytes")) f.slope_vs_bytes = in.Enum("slope_vs_bytes", kSlopeKindNames);
  f.bytes_share = in.NumberOr("bytes_share", 0);
  if (in.Has("points")) f.points = in.Strings("points");
  if (in.Has("split")) {  // issue 52: absent in older files
    ObjectReader s = in.Object("split");
    GrowthSplit split;
    split.reading = s.Enum("reading", kGrowthReadingNames);
    split.time_growth_us = s.Number("time_growth_us");
    split.transfer_first_us = s.Number("transfer_first_us");
    split.transfer_last_us = s.Number("transfer_last_us");
    split.skew_first_us = s.Number("skew_first_us");
    split.skew_last_us = s.Number("skew_last_us");
    split.transfer_growth_us = s.Number("transfer_growth_us");
    split.skew_growth_us = s.Number("skew_growth_us");
    f.split = split;
  }
  RETURN_IF_ERROR(errors.status());
  if (f.groups.empty() || f.groups.size() != f.p50_us.size()) {
    return InvalidArgument(in.PathOf("p50_us") + ": expected one value per group count (" +
                           std::to_string(f.groups.size()) + ")");
  }
  // The series' axes are a point's minus the keys that vary along it: read them as its first point.
  json first = j;
  first["id"] = "";
  first["groups"] = f.groups.front();
  first["world"] = f.groups.front() * first.value("group_size", 0);
  first["count"] = 1;
  ASSIGN_OR_RETURN(f.series, ReadPoint(first, path));
  return f;
}

}  // namespace commbench::result
