#include "lib/export/point_axes.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "lib/core/axes.h"
#include "lib/core/types.h"

namespace commbench::exporting {

std::vector<Field> AxisFields(const Point& p) {
  auto s = [](std::string_view v) { return std::string(v); };
  return {
      {"backend", p.backend},
      {"op", s(Name(p.op))},
      {"algo", p.algo},
      {"dtype", s(Name(p.dtype))},
      {"reduce", s(Name(p.reduce))},
      {"size_bytes", std::to_string(p.bytes)},
      {"count", std::to_string(p.count)},
      {"groups", std::to_string(p.groups)},
      {"group_size", std::to_string(p.group_size)},
      {"world", std::to_string(p.world())},
      {"in_place", p.in_place ? "true" : "false"},
      {"sync", s(Name(p.sync))},
      {"concurrency", s(Name(p.concurrency))},
      {"ranks_per_process", std::to_string(p.ranks_per_process)},
      {"pin", s(Name(p.pin))},
      {"cpus", p.cpus},
      {"device", s(Name(p.device))},
      {"stream", s(Name(p.gpu.stream))},
      {"h2d", s(Name(p.gpu.h2d))},
      {"h2d_bytes", std::to_string(p.gpu.h2d_bytes)},
      {"graph", s(GraphName(p.gpu.graph))},
      {"phase", p.phase},
  };
}

bool ParseIsoTime(const std::string& text, double* seconds) {
  int y, mo, d, h, mi;
  double sec;
  char zone = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%c%n", &y, &mo, &d, &h, &mi, &sec, &zone, &used) != 7 ||
      zone != 'Z' || static_cast<size_t>(used) != text.size()) {
    return false;
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = 0;
  const time_t t = timegm(&tm);
  if (t == static_cast<time_t>(-1)) return false;
  *seconds = static_cast<double>(t) + sec;
  return true;
}

std::string Number(double v, const std::string& non_finite) {
  if (!std::isfinite(v)) return non_finite;
  return nlohmann::json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace commbench::exporting
