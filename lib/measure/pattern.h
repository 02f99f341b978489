// Data patterns that make every collective checkable. Every expected element is a distinct value chosen by a code
// that depends on the owning rank (allgather, reduce-scatter), the element and the iteration, so a stale buffer, a
// block from the wrong rank, a shifted block or an untouched buffer shows, for groups of up to 4096 ranks. For
// reductions at most 8 ranks per element (a window that moves with element and iteration) shape the result (the
// others give the identity, or for max/min a value that never wins), so sums and products stay exact in every
// dtype (f16/bf16 included) in any reduction order. The expected output is computed from the code alone, not by a
// second reduction; pattern_test reduces the ranks' inputs independently and proves they give it.
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
