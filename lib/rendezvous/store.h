// Store: the key-value rendezvous every backend uses to find its peers (as gloo::rendezvous::Store).
// Keys are written once; Get waits until the key exists or the timeout passes.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/status.h"

namespace commbench {

class Store {
 public:
  virtual ~Store() = default;
  virtual Status Set(const std::string& key, const std::vector<char>& value) = 0;
  virtual StatusOr<std::vector<char>> Get(const std::string& key, std::chrono::milliseconds timeout) = 0;
  // A short description for messages and `commbench env` ("file:/tmp/commbench-xyz", "redis:host:6379").
  virtual std::string Describe() const = 0;
};

// Prepends "<prefix>/" to every key, so that groups and points never see each other's keys.
class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, Store* base) : prefix_(std::move(prefix)), base_(base) {}
  Status Set(const std::string& key, const std::vector<char>& value) override {
    return base_->Set(prefix_ + "/" + key, value);
  }
  StatusOr<std::vector<char>> Get(const std::string& key, std::chrono::milliseconds timeout) override {
    return base_->Get(prefix_ + "/" + key, timeout);
  }
  std::string Describe() const override { return base_->Describe() + " prefix " + prefix_; }

 private:
  std::string prefix_;
  Store* base_;
};

// Gloo's FileStore over a directory that must already exist (the driver creates it with mode 0700).
std::unique_ptr<Store> NewFileStore(const std::string& directory);

// Opens a store from a URL: "file:/path" or "redis://host:port".
StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& url);

}  // namespace commbench
