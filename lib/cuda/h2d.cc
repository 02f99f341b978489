#include "lib/cuda/h2d.h"

#include <vector>

namespace commbench::cuda {

StatusOr<H2dWorkload> H2dWorkload::Create(H2dKind kind, size_t bytes) {
  H2dWorkload w;
  w.kind_ = kind;
  if (kind == H2dKind::kNone) return w;
  ASSIGN_OR_RETURN(w.host_, HostBuffer::Create(bytes, kind == H2dKind::kPinned));
  FillH2dSource(w.host_.data(), bytes);
  ASSIGN_OR_RETURN(w.device_, DeviceBuffer::Create(bytes));
  return w;
}

Status H2dWorkload::Enqueue(const Stream& stream) const {
  if (!active()) return OkStatus();
  return CopyAsync(device_.data(), host_.data(), host_.size(), CopyKind::kHostToDevice, stream);
}

Status H2dWorkload::Verify(const Stream& stream) const {
  if (!active()) return OkStatus();
  std::vector<unsigned char> back(host_.size());
  RETURN_IF_ERROR(CopyAsync(back.data(), device_.data(), back.size(), CopyKind::kDeviceToHost, stream));
  RETURN_IF_ERROR(stream.Synchronize());
  return CheckH2dCopy(back.data(), back.size());
}

}  // namespace commbench::cuda
