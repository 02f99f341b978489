#include "lib/backend/backend.h"

#include <map>

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

bool RegisterBackend(const std::string& name, BackendFactory factory) {
  Factories()[name] = std::move(factory);
  return true;
}

std::vector<std::string> RegisteredBackends() {
  std::vector<std::string> names;
  for (const auto& entry : Factories()) names.push_back(entry.first);
  return names;
}

StatusOr<std::unique_ptr<Backend>> CreateBackend(const std::string& name) {
  auto it = Factories().find(name);
  if (it == Factories().end()) {
    std::string accepted;
    for (const auto& n : RegisteredBackends()) accepted += (accepted.empty() ? "" : ", ") + n;
    return InvalidArgument("--backends: unknown backend '" + name + "' (accepted: " + accepted + ")");
  }
  return it->second();
}

}  // namespace commbench
