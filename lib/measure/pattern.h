// Data patterns that make every collective checkable: the input depends on rank, element index and iteration,
// so a wrong offset or a stale buffer shows, and the expected output is computed independently (in double,
// rank by rank) rather than by a second reduction. Values are small integers, exact in every dtype for groups
// of up to 64 ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lib/backend/backend.h"

namespace commbench {

// The value rank `rank` contributes at send-buffer index `index` in iteration `iter`.
double PatternValue(const OpRequest& request, int rank, int group_size, size_t index, uint64_t iter);

// The expected receive-buffer value at `index` for group rank `rank`.
double ExpectedValue(const OpRequest& request, int rank, int group_size, size_t index, uint64_t iter);

// Fills a send buffer (SendCount elements of request.dtype) for this rank and iteration.
void FillInput(const OpRequest& request, int rank, int group_size, uint64_t iter, std::vector<char>* buffer);

// Checks a receive buffer (RecvCount elements). DataLoss names the first bad index, the value and the
// expected value, and how many elements differ.
Status CheckOutput(const OpRequest& request, int rank, int group_size, uint64_t iter, const std::vector<char>& buffer);

// Element access in any dtype, for checks and tests.
double LoadElement(DataType dtype, const void* base, size_t index);
void StoreElement(DataType dtype, void* base, size_t index, double value);

}  // namespace commbench
