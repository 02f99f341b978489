#include "lib/result/host_load.h"

#include <nlohmann/json.hpp>

#include "lib/result/json_reader.h"

namespace commbench::result {

using nlohmann::json;

double HostLoad::TopShare() const { return top.empty() || window_s <= 0 ? 0 : top.front().cpu_s / window_s; }

double HostLoad::OutsideCpus() const { return window_s > 0 ? outside_cpu_s / window_s : 0; }

double HostLoad::ShortLivedCpuS() const {
  double s = unattributed_cpu_s;
  for (const OutsideProcess& p : top) s += p.children_cpu_s;
  return s;
}

json HostLoadToJson(const HostLoad& h) {
  json per_cpu = json::array();
  for (const CpuLoad& c : h.per_cpu)
    per_cpu.push_back(
        {{"cpu", c.cpu}, {"busy_s", c.busy_s}, {"outside_s", c.outside_s}, {"unattributed_s", c.unattributed_s}});
  json top = json::array();
  for (const OutsideProcess& p : h.top)
    top.push_back(
        {{"pid", p.pid}, {"comm", p.comm}, {"cpu_s", p.cpu_s}, {"cpus", p.cpus}, {"children_cpu_s", p.children_cpu_s}});
  return {{"window_s", h.window_s},
          {"cpu_busy_s", h.cpu_busy_s},
          {"ranks_cpu_s", h.ranks_cpu_s},
          {"own_cpu_s", h.own_cpu_s},
          {"outside_cpu_s", h.outside_cpu_s},
          {"unattributed_cpu_s", h.unattributed_cpu_s},
          {"outside_share", h.outside_share},
          {"monitor_cpu_s", h.monitor_cpu_s},
          {"per_cpu", per_cpu},
          {"top", top}};
}

StatusOr<HostLoad> ReadHostLoad(const json& j, const std::string& path) {
  SchemaErrors errors;
  ObjectReader in(j, path, &errors);
  HostLoad h;
  h.window_s = in.Number("window_s", 0);
  h.cpu_busy_s = in.Number("cpu_busy_s", 0);
  h.ranks_cpu_s = in.Number("ranks_cpu_s", 0);
  h.own_cpu_s = in.Number("own_cpu_s", 0);
  h.outside_cpu_s = in.Number("outside_cpu_s", 0);
  h.unattributed_cpu_s = in.Has("unattributed_cpu_s") ? in.Number("unattributed_cpu_s", 0) : 0;
  h.outside_share = in.Number("outside_share", 0);
  h.monitor_cpu_s = in.Number("monitor_cpu_s", 0);
  const auto per_cpu = in.Array("per_cpu");
  for (size_t i = 0; i < per_cpu.size(); ++i) {
    ObjectReader c(*per_cpu[i], ObjectReader::PathOf(in.PathOf("per_cpu"), i), &errors);
    h.per_cpu.push_back({static_cast<int>(c.Int("cpu", 0)), c.Number("busy_s", 0), c.Number("outside_s", 0),
                         c.Has("unattributed_s") ? c.Number("unattributed_s", 0) : 0});
  }
  const auto top = in.Array("top");
  for (size_t i = 0; i < top.size(); ++i) {
    ObjectReader p(*top[i], ObjectReader::PathOf(in.PathOf("top"), i), &errors);
    OutsideProcess o;
    o.pid = static_cast<int>(p.Int("pid", 1));
    o.comm = p.String("comm");
    o.cpu_s = p.Number("cpu_s", 0);
    o.children_cpu_s = p.Has("children_cpu_s") ? p.Number("children_cpu_s", 0) : 0;
    for (int64_t cpu : p.Ints("cpus", 0)) o.cpus.push_back(static_cast<int>(cpu));
    h.top.push_back(std::move(o));
  }
  RETURN_IF_ERROR(errors.status());
  return h;
}

}  // namespace commbench::result
