// The per-iteration host-to-device copy of reference scenario B (docs/design.md §4): a minibatch of h2d_bytes copied
// from pageable or pinned host memory into its own device buffer, on the stream the collective uses. It is
// deliberately independent of the collective's buffers, as the minibatch is of the gradients.
#pragma once

#include <cstddef>

#include "lib/core/status.h"
#include "lib/cuda/plan.h"
#include "lib/cuda/runtime.h"

namespace commbench::cuda {

class H2dWorkload {
 public:
  // Allocates the host source (filled with FillH2dSource) and the device destination; an inactive workload
  // for H2dKind::kNone.
  static StatusOr<H2dWorkload> Create(H2dKind kind, size_t bytes);

  bool active() const { return kind_ != H2dKind::kNone; }
  H2dKind kind() const { return kind_; }
  size_t bytes() const { return host_.size(); }

  // One copy on `stream` (nothing when inactive). Legal inside a graph capture for pinned memory only.
  Status Enqueue(const Stream& stream) const;
  // Waits for `stream`, reads the destination back and checks it against the source pattern.
  Status Verify(const Stream& stream) const;

 private:
  H2dKind kind_ = H2dKind::kNone;
  HostBuffer host_;
  DeviceBuffer device_;
};

}  // namespace commbench::cuda
