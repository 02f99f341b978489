// A POSIX shared-memory segment: created under an unguessable name (128 random bits), mode 0600, backed by
// reserved tmpfs pages (posix_fallocate, so a full /dev/shm is an error here, not a SIGBUS later), mapped with
// its page tables populated. The creator unlinks the name as soon as every peer has mapped it; the destructor
// unlinks too, so no exit path that runs destructors leaves a name behind.
#pragma once

#include <cstddef>
#include <string>

#include "lib/core/status.h"

namespace commbench {
namespace native {

// Every segment name starts with this, then the creator's pid, then the random part.
constexpr char kSegmentPrefix[] = "/commbench-native-";

class Segment {
 public:
  Segment() = default;
  ~Segment();
  Segment(Segment&& other) noexcept;
  Segment& operator=(Segment&& other) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  static StatusOr<Segment> Create(size_t bytes);
  static StatusOr<Segment> Open(const std::string& name, size_t bytes);

  // Removes the name (mappings stay valid). Idempotent; a no-op for segments this process did not create.
  void Unlink();

  char* data() const { return static_cast<char*>(data_); }
  size_t size() const { return size_; }
  const std::string& name() const { return name_; }

 private:
  void Release();

  void* data_ = nullptr;
  size_t size_ = 0;
  std::string name_;
  bool owner_ = false;
};

}  // namespace native
}  // namespace commbench
