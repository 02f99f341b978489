#include "lib/backend/gloo/gloo_context.h"

#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>

#include <map>
#include <mutex>

namespace commbench {
namespace {

// Presents our Store to Gloo's rendezvous. Gloo expects exceptions on failure.
class GlooStoreAdapter : public gloo::rendezvous::Store {
 public:
  GlooStoreAdapter(commbench::Store* store, std::chrono::milliseconds timeout) : store_(store), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    Status s = store_->Set(key, data);
    if (!s.ok()) throw std::runtime_error(s.message());
  }
  std::vector<char> get(const std::string& key) override {
    auto v = store_->Get(key, timeout_);
    if (!v.ok()) throw std::runtime_error(v.status().message());
    return std::move(v).value();
  }
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    for (const auto& key : keys) {
      auto v = store_->Get(key, timeout);
      if (!v.ok()) throw std::runtime_error(v.status().message());
    }
  }

 private:
  commbench::Store* store_;
  std::chrono::milliseconds timeout_;
};

// One TCP device (and its event loop thread) per address per process, shared by all contexts.
std::shared_ptr<gloo::transport::Device> DeviceFor(const std::string& host, const std::string& iface) {
  static std::mutex mu;
  static auto* devices = new std::map<std::string, std::shared_ptr<gloo::transport::Device>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& device = (*devices)[host + "|" + iface];
  if (!device) {
    gloo::transport::tcp::attr attr;
    if (iface.empty()) {
      attr.hostname = host;
    } else {
      attr.iface = iface;
    }
    device = gloo::transport::tcp::CreateDevice(attr);
  }
  return device;
}

}  // namespace

StatusOr<std::shared_ptr<gloo::Context>> ConnectGlooContext(const GlooConnectOptions& options) {
  try {
    auto device = DeviceFor(options.host, options.iface);
    auto context = std::make_shared<gloo::rendezvous::Context>(options.rank, options.size);
    context->setTimeout(options.timeout);
    GlooStoreAdapter store(options.store, options.timeout);
    context->connectFullMesh(store, device);
    return std::shared_ptr<gloo::Context>(context);
  } catch (const std::exception& e) {
    return Unavailable("gloo: rank " + std::to_string(options.rank) + " of " + std::to_string(options.size) +
                       " could not connect (" + options.store->Describe() + "): " + e.what());
  }
}

}  // namespace commbench
