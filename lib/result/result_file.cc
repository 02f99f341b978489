#include "lib/result/result_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "lib/core/data_file.h"
#include "lib/model/point_json.h"
#include "lib/result/json_reader.h"
#include "lib/result/json_text.h"
#include "lib/result/spec_reader.h"

namespace commbench::result {

using nlohmann::json;

namespace {

// Reads each element of the array `key` with `read(element, path)`, stopping at the first error.
template <typename T, typename Read>
Status ReadList(ObjectReader& in, const char* key, Read read, std::vector<T>* out) {
  const auto items = in.Array(key);
  RETURN_IF_ERROR(in.errors()->status());
  out->reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    ASSIGN_OR_RETURN(T item, read(*items[i], ObjectReader::PathOf(in.PathOf(key), i)));
    out->push_back(std::move(item));
  }
  return OkStatus();
}

StatusOr<Skip> ReadSkip(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  Skip s{in.String("what"), in.String("reason")};
  RETURN_IF_ERROR(errors.status());
  return s;
}

StatusOr<ResultHeader> ReadHeader(ObjectReader& in) {
  ResultHeader h;
  h.schema_version = in.SmallInt("schema_version");
  RETURN_IF_ERROR(in.errors()->status());
  if (h.schema_version < kOldestSchemaVersion || h.schema_version > kSchemaVersion) {
    return InvalidArgument("unsupported schema_version " + std::to_string(h.schema_version) +
                           " (this commbench reads " + std::to_string(kOldestSchemaVersion) + " to " +
                           std::to_string(kSchemaVersion) + ")");
  }
  ObjectReader tool = in.Object("tool");
  h.tool = {tool.String("name"), tool.String("version"), tool.String("commit")};
  h.command = in.String("command");
  h.started_at = in.String("started_at");
  in.Object("spec");
  in.Object("environment");
  RETURN_IF_ERROR(in.errors()->status());
  ASSIGN_OR_RETURN(h.spec, ReadSpec(in.value().at("spec"), in.PathOf("spec")));
  ASSIGN_OR_RETURN(h.environment, ReadEnvironment(in.value().at("environment"), in.PathOf("environment")));
  return h;
}

AbSide ReadAbSide(ObjectReader in) {
  AbSide side;
  side.point = in.String("point");
  side.mean_us = in.Number("mean_us", 0);
  side.se_us = in.Number("se_us", 0);
  side.outside_cpus = in.NumberOr("outside_cpus", -1);
  return side;
}

json AbSideToJson(const AbSide& side) {
  return {{"point", side.point}, {"mean_us", side.mean_us}, {"se_us", side.se_us}, {"outside_cpus", side.outside_cpus}};
}

StatusOr<AbRound> ReadAbRound(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  AbRound r;
  r.round = in.SmallInt("round", 0);
  r.groups = in.SmallInt("groups", 1);
  r.a_first = in.Bool("a_first");
  r.a = ReadAbSide(in.Object("a"));
  r.b = ReadAbSide(in.Object("b"));
  RETURN_IF_ERROR(errors.status());
  return r;
}

StatusOr<ExplainAb> ReadExplainAb(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  ExplainAb ab;
  ab.rule = in.String("rule");
  ab.reason = in.String("reason");
  ab.series = in.Strings("series");
  ab.points = in.Strings("points");
  in.Array("factor");
  RETURN_IF_ERROR(errors.status());
  auto factor = ReadExplainFactor(j.at("factor"));
  if (!factor.ok()) return InvalidArgument(in.PathOf("factor") + ": " + factor.status().message());
  ab.factor = std::move(*factor);
  if (in.Has("rounds")) RETURN_IF_ERROR(ReadList(in, "rounds", ReadAbRound, &ab.rounds));  // absent in older files
  return ab;
}

StatusOr<ExplainRecord> ReadExplain(ObjectReader& in) {
  ObjectReader explain = in.Object("explain");
  ExplainRecord record;
  record.first_phase_points = explain.Int("first_phase_points", 0);
  RETURN_IF_ERROR(in.errors()->status());
  RETURN_IF_ERROR(ReadList(explain, "abs", ReadExplainAb, &record.abs));
  return record;
}

json RoundsToJson(const std::vector<AbRound>& rounds) {
  json out = json::array();
  for (const AbRound& r : rounds) {
    out.push_back({{"round", r.round},
                   {"groups", r.groups},
                   {"a_first", r.a_first},
                   {"a", AbSideToJson(r.a)},
                   {"b", AbSideToJson(r.b)}});
  }
  return out;
}

json ExplainToJson(const ExplainRecord& record) {
  json abs = json::array();
  for (const ExplainAb& ab : record.abs) {
    abs.push_back({{"rule", ab.rule},
                   {"factor", ExplainFactorToJson(ab.factor)},
                   {"reason", ab.reason},
                   {"series", ab.series},
                   {"points", ab.points},
                   {"rounds", RoundsToJson(ab.rounds)}});
  }
  return {{"first_phase_points", record.first_phase_points}, {"abs", abs}};
}

StatusOr<ResultTrailer> ReadTrailer(ObjectReader& in) {
  ResultTrailer t;
  t.duration_s = in.Number("duration_s", 0);
  t.diagnosis.verdict = in.Enum("verdict", kVerdictNames);
  t.status = in.Enum("status", kRunStatusNames);
  if (t.status == RunStatus::kPartial && in.Has("failure")) t.failure = in.String("failure");
  if (in.Has("caveats")) t.diagnosis.caveats = in.Strings("caveats");
  RETURN_IF_ERROR(in.errors()->status());
  RETURN_IF_ERROR(ReadList(in, "skipped", ReadSkip, &t.skipped));
  RETURN_IF_ERROR(ReadList(in, "fits", ReadFit, &t.diagnosis.fits));
  if (in.Has("noise_floor")) {  // absent before it was recorded
    ASSIGN_OR_RETURN(t.diagnosis.noise_floor, ReadNoiseFloor(in.value().at("noise_floor"), in.PathOf("noise_floor")));
  }
  RETURN_IF_ERROR(ReadList(in, "findings", ReadFinding, &t.diagnosis.findings));
  // ruled_out[] came after schema_version 1's first files: absent means none were recorded.
  if (in.Has("ruled_out")) RETURN_IF_ERROR(ReadList(in, "ruled_out", ReadFinding, &t.diagnosis.ruled_out));
  // Absent before wrong results were left out of the diagnosis by name.
  if (in.Has("excluded_points")) t.diagnosis.excluded = in.Strings("excluded_points");
  RETURN_IF_ERROR(in.errors()->status());
  if (in.Has("acceptance")) t.acceptance = in.value().at("acceptance");  // commbench accept only
  if (in.Has("wall")) {                                                  // schema_version 4 on
    ASSIGN_OR_RETURN(t.wall, ReadWallTime(in.value().at("wall"), in.PathOf("wall")));
  }
  if (in.Has("explain")) {  // --explain only
    ASSIGN_OR_RETURN(t.explain, ReadExplain(in));
  }
  return t;
}

json FindingsToJson(const std::vector<Finding>& findings) {
  json out = json::array();
  for (const Finding& f : findings) out.push_back(FindingToJson(f));
  return out;
}

}  // namespace

StatusOr<Environment> ReadEnvironment(const json& fingerprint, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(fingerprint, path, &errors);
  Environment e;
  e.host = in.String("host");
  e.affinity = in.String("affinity");
  e.cores_online = in.SmallInt("cores_online", 0);
  in.Object("variables");
  if (in.Has("peaks") && !in.IsNull("peaks")) {
    ObjectReader peaks = in.Object("peaks");
    e.peaks = HostPeaks{peaks.Number("memcpy_gbps", 0), peaks.Number("tcp_loopback_gbps", 0)};
  }
  RETURN_IF_ERROR(errors.status());
  e.fingerprint = fingerprint;
  return e;
}

json HeaderToJson(const ResultHeader& h) {
  // The command, the spec's strings and the environment hold whatever bytes the user and the host gave.
  return WithValidUtf8({{"schema_version", kSchemaVersion},
                        {"tool", {{"name", h.tool.name}, {"version", h.tool.version}, {"commit", h.tool.commit}}},
                        {"command", h.command},
                        {"started_at", h.started_at},
                        {"spec", SpecToJson(h.spec)},
                        {"environment", h.environment.fingerprint}});
}

json TrailerToJson(const ResultTrailer& t) {
  json skipped = json::array();
  for (const Skip& s : t.skipped) skipped.push_back({{"what", s.what}, {"reason", s.reason}});
  json fits = json::array();
  for (const Fit& f : t.diagnosis.fits) fits.push_back(FitToJson(f));
  json j = {{"duration_s", t.duration_s},
            {"skipped", skipped},
            {"fits", fits},
            {"findings", FindingsToJson(t.diagnosis.findings)},
            {"ruled_out", FindingsToJson(t.diagnosis.ruled_out)},
            {"verdict", NameOf(kVerdictNames, t.diagnosis.verdict)},
            {"excluded_points", t.diagnosis.excluded},
            {"status", NameOf(kRunStatusNames, t.status)}};
  if (t.diagnosis.noise_floor) j["noise_floor"] = NoiseFloorToJson(*t.diagnosis.noise_floor);
  if (!t.diagnosis.caveats.empty()) j["caveats"] = t.diagnosis.caveats;
  if (t.status == RunStatus::kPartial) j["failure"] = t.failure;
  if (t.explain) j["explain"] = ExplainToJson(*t.explain);
  if (t.acceptance) j["acceptance"] = *t.acceptance;
  if (t.wall) j["wall"] = WallTimeToJson(*t.wall);
  return WithValidUtf8(std::move(j));  // failure messages and evidence may quote host names and paths
}

json ResultFileToJson(const ResultFile& file) {
  json j = HeaderToJson(file.header);
  json points = json::array();
  for (const PointResult& p : file.points) points.push_back(PointResultToJson(p));
  j["points"] = std::move(points);
  j.update(TrailerToJson(file.trailer));
  return j;
}

StatusOr<ResultFile> ReadResultFile(const json& j) {
  SchemaErrors errors;
  ObjectReader in(j, "", &errors);
  RETURN_IF_ERROR(errors.status());
  ResultFile file;
  ASSIGN_OR_RETURN(file.header, ReadHeader(in));
  RETURN_IF_ERROR(ReadList(
      in, "points", [](const json& p, const std::string& path) { return ReadPointResult(p, path); }, &file.points));
  ASSIGN_OR_RETURN(file.trailer, ReadTrailer(in));
  return file;
}

StatusOr<ResultFile> LoadResultFile(const std::string& path) {
  StatusOr<std::string> read = ReadDataFile(path, kMaxResultFileBytes, "result file");
  if (!read.ok()) {
    if (read.status().code() == StatusCode::kInvalidArgument) return read.status();
    if (read.status().code() == StatusCode::kNotFound) {
      return InvalidArgument("cannot read " + path + ": " + std::strerror(ENOENT));
    }
    return InvalidArgument("cannot read " + path + ": " + read.status().message());
  }
  return ParseResultText(*read, path);
}

StatusOr<ResultFile> ParseResultText(const std::string& content, const std::string& path) {
  if (content.empty()) return InvalidArgument(path + " is empty (the sweep may have been killed before writing)");
  json j;
  bool too_deep = false;
  std::string duplicate;
  try {
    j = json::parse(content, DepthAndDuplicateCheck(&too_deep, &duplicate));
  } catch (const json::out_of_range& e) {  // a number beyond double's range, e.g. 1e400
    std::string why = e.what();
    const size_t at = why.find("] ");
    if (at != std::string::npos) why = why.substr(at + 2);
    return InvalidArgument(path + " is not valid JSON (" + why + ")");
  } catch (const json::parse_error& e) {
    // e.what() reads "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ...".
    std::string why = e.what();
    const size_t at = why.find("] ");
    if (at != std::string::npos) why = why.substr(at + 2);
    const bool truncated = e.byte >= content.size();
    return InvalidArgument(path + " is not valid JSON (" + why + ")" + (truncated ? "; the file looks truncated" : ""));
  }
  if (too_deep) {
    return InvalidArgument(path + " is not a results file: its JSON nests deeper than " +
                           std::to_string(kMaxJsonDepth) + " levels");
  }
  if (!duplicate.empty()) {
    return InvalidArgument(path + ": " + duplicate +
                           ": the key is given twice in one object (accepted: each key once)");
  }
  auto file = ReadResultFile(j);
  if (!file.ok()) return InvalidArgument(path + ": " + file.status().message());
  return file;
}

}  // namespace commbench::result
