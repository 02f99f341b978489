#include "lib/backend/backend.h"

#include <algorithm>
#include <map>

#include "lib/core/name_table.h"

namespace commbench {
namespace {

std::map<std::string, BackendFactory>& Factories() {
  static auto* factories = new std::map<std::string, BackendFactory>();
  return *factories;
}

}  // namespace

size_t SendCount(const OpRequest& r, int group_size) {
  return r.op == Collective::kReduceScatter ? r.count * static_cast<size_t>(group_size) : r.count;
}

size_t RecvCount(const OpRequest& r, int group_size) {
  return r.op == Collective::kAllgather ? r.count * static_cast<size_t>(group_size) : r.count;
}

Status CheckCapabilities(const std::string& backend, const BackendCapabilities& caps, const OpRequest& r) {
  auto has = [](const auto& values, auto value) {
    return std::find(values.begin(), values.end(), value) != values.end();
  };
  if (!has(caps.dtypes, r.dtype)) return InvalidArgument(backend + " has no " + std::string(Name(r.dtype)) + " type");
  const GpuAxes defaults;
  if (caps.device == DeviceKind::kCpu &&
      (r.gpu.stream != defaults.stream || r.gpu.h2d != defaults.h2d || r.gpu.graph)) {
    return InvalidArgument(backend + " runs on the CPU: --stream, --h2d and --graph do not apply");
  }
  const std::string op(Name(r.op));
  if (r.in_place && !has(caps.in_place_ops, r.op)) {
    return InvalidArgument(backend + "'s " + op + " works out of place only");
  }
  if (!r.in_place && !has(caps.out_of_place_ops, r.op)) {
    return InvalidArgument(backend + "'s " + op + " works in place only");
  }
  return OkStatus();
}

bool RegisterBackend(const std::string& name, BackendFactory factory) {
  Factories()[name] = std::move(factory);
  return true;
}

std::vector<std::string> RegisteredBackends() {
  std::vector<std::string> names;
  for (const auto& entry : Factories()) names.push_back(entry.first);
  return names;
}

std::string RegisteredBackendList() { return CommaList(RegisteredBackends()); }

StatusOr<std::unique_ptr<Backend>> CreateBackend(const std::string& name) {
  auto it = Factories().find(name);
  if (it == Factories().end()) {
    return InvalidArgument("--backends: unknown backend '" + name + "' (accepted: " + RegisteredBackendList() + ")");
  }
  return it->second();
}

StatusOr<BackendCapabilities> CapabilitiesOf(const std::string& name) {
  ASSIGN_OR_RETURN(std::unique_ptr<Backend> backend, CreateBackend(name));
  return backend->Capabilities();
}

StatusOr<std::vector<BackendDescription>> DescribeRegisteredBackends(const std::vector<std::string>& names) {
  std::vector<BackendDescription> out;
  for (const auto& name : names) {
    ASSIGN_OR_RETURN(std::shared_ptr<Backend> backend, CreateBackend(name));
    BackendDescription d;
    d.name = name;
    d.available = backend->Available();
    d.capabilities = backend->Capabilities();
    d.algorithms = backend->Algorithms();
    d.supports = [backend](const OpRequest& request, int group_size) { return backend->Supports(request, group_size); };
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace commbench
