// The sweep flags' values (sweep_flags.h) parsed into a SweepSpec, and the outputs checked before any rank starts.
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "lib/backend/backend.h"
#include "lib/core/atomic_file.h"
#include "lib/core/axes.h"
#include "lib/core/ranges.h"
#include "lib/result/result_writer.h"
#include "lib/sweep/planner.h"
#include "tools/commbench/sweep_flags.h"

namespace commbench::cli {
namespace {

StatusOr<std::vector<std::string>> Names(const std::string& text, const char* flag) {
  return ParseNameList(text, flag);
}

// A list flag of one axis: "--sync: unknown value 'x' (accepted: ...)" for a name the axis lacks.
template <typename E>
StatusOr<std::vector<E>> Values(const std::string& text, const char* flag,
                                StatusOr<E> (*parse)(std::string_view, std::string_view)) {
  ASSIGN_OR_RETURN(std::vector<std::string> names, Names(text, flag));
  std::vector<E> values;
  for (const auto& name : names) {
    ASSIGN_OR_RETURN(E value, parse(name, std::string(flag) + ": unknown value"));
    values.push_back(value);
  }
  return values;
}

// --time-budget-above: SIZE=SECONDS items, each SIZE a byte count (4K, 1M) given once, SECONDS above 0.
StatusOr<std::map<uint64_t, double>> BudgetsAbove(const std::vector<std::string>& values) {
  std::map<uint64_t, double> out;
  const std::string accepted = " (accepted: SIZE=SECONDS, e.g. 256K=0.4, SECONDS above 0 and at most 3600)";
  for (const std::string& value : values) {
    ASSIGN_OR_RETURN(std::vector<std::string> items, Names(value, "--time-budget-above"));
    for (const std::string& item : items) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos) return InvalidArgument("--time-budget-above '" + item + "'" + accepted);
      ASSIGN_OR_RETURN(uint64_t bytes, ParseByteSize(item.substr(0, eq), "--time-budget-above"));
      char* end = nullptr;
      const std::string seconds = item.substr(eq + 1);
      const double s = std::strtod(seconds.c_str(), &end);
      if (seconds.empty() || *end != '\0' || !(s > 0 && s <= 3600)) {
        return InvalidArgument("--time-budget-above '" + item + "': '" + seconds + "' is not a number of seconds" +
                               accepted);
      }
      if (!out.emplace(bytes, s).second) {
        return InvalidArgument("--time-budget-above '" + item + "': that size is given twice" + accepted);
      }
    }
  }
  return out;
}

}  // namespace

StatusOr<SweepSpec> ToSpec(const SweepFlags& f) {
  SweepSpec s = f.spec;
  ASSIGN_OR_RETURN(s.backends, Names(f.backends, "--backends"));
  for (const auto& b : s.backends) RETURN_IF_ERROR(CreateBackend(b).status());  // the registry's names
  ASSIGN_OR_RETURN(s.ops, Names(f.ops, "--ops"));
  ASSIGN_OR_RETURN(s.algos, Names(f.algos, "--algos"));
  ASSIGN_OR_RETURN(s.dtypes, Names(f.dtypes, "--dtypes"));
  ASSIGN_OR_RETURN(s.reduces, Names(f.reduces, "--reduce"));
  ASSIGN_OR_RETURN(s.sizes, ParseSizeList(f.sizes, "--sizes", uint64_t{16} << 30));
  ASSIGN_OR_RETURN(s.groups, ParseIntList(f.groups, "--groups", {1, 4096}));
  ASSIGN_OR_RETURN(s.group_sizes, ParseIntList(f.group_sizes, "--group-size", {1, 4096}));
  ASSIGN_OR_RETURN(s.syncs, Values(f.syncs, "--sync", ParseSync));
  ASSIGN_OR_RETURN(s.ranks_per_process, ParseIntList(f.ranks_per_process, "--ranks-per-process", {1, 256}));
  ASSIGN_OR_RETURN(s.pins, Values(f.pins, "--pin", ParsePin));
  ASSIGN_OR_RETURN(s.concurrencies, Values(f.concurrencies, "--concurrency", ParseConcurrency));
  s.cpus.clear();
  for (const auto& value : f.cpus) {
    size_t start = 0;
    while (true) {
      size_t semi = value.find(';', start);
      std::string item = value.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
      ASSIGN_OR_RETURN(auto cpus, ParseCpuList(item, "--cpus"));
      s.cpus.push_back(FormatCpuList(cpus));
      if (semi == std::string::npos) break;
      start = semi + 1;
    }
  }
  if (s.cpus.empty()) s.cpus = {""};
  ASSIGN_OR_RETURN(s.streams, Values(f.streams, "--stream", ParseStreamKind));
  ASSIGN_OR_RETURN(s.h2ds, Values(f.h2ds, "--h2d", ParseH2dKind));
  ASSIGN_OR_RETURN(s.h2d_bytes, ParseByteSize(f.h2d_bytes, "--h2d-bytes"));
  ASSIGN_OR_RETURN(s.time_budget_above, BudgetsAbove(f.time_budget_above));
  ASSIGN_OR_RETURN(s.graphs, Values(f.graphs, "--graph", ParseGraph));
  ASSIGN_OR_RETURN(s.in_place, ParseInPlace(f.in_place));
  ASSIGN_OR_RETURN(s.launcher, ParseLauncher(f.launcher));
  ASSIGN_OR_RETURN(s.group_by, ParseGroupBy(f.group_by));
  RETURN_IF_ERROR(ValidateSpec(s));
  return s;
}

Status CheckOutputs(const OutputFlags& f, const std::vector<NamedPath>& inputs) {
  std::vector<NamedPath> outputs = {
      {"--out", f.out}, {"--out's samples file", result::SamplesSidecarPath(f.out)}, {"--html", f.html}};
  RETURN_IF_ERROR(CheckOutputsApart(outputs, inputs));
  for (const std::string& path : {f.out, result::SamplesSidecarPath(f.out), f.html}) {
    if (!path.empty()) RETURN_IF_ERROR(CheckWritableOutput(path));
  }
  std::vector<std::string> others = {f.out, result::SamplesSidecarPath(f.out), f.html};
  for (const NamedPath& in : inputs) others.push_back(in.path);
  return CheckExportFlags(f.exports, others);
}

}  // namespace commbench::cli
