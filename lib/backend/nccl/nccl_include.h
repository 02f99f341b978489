// Includes nccl.h for .cc files only. nccl.h includes cuda_runtime.h and cuda_fp16/bf16/fp8.h, which include
// .hpp files that @local_cuda's header glob (include/*.h) does not declare, so a sandboxed compile cannot see
// them. nccl.h itself needs only cudaStream_t from the C API, so we include that and mark the C++ headers as
// already included. Remove this once third_party/cuda_configure.bzl also globs include/*.hpp.
#pragma once

#include <cuda_runtime_api.h>

#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__
#endif
#ifndef __CUDA_FP16_H__
#define __CUDA_FP16_H__
#endif
#ifndef __CUDA_BF16_H__
#define __CUDA_BF16_H__
#endif
#ifndef __CUDA_FP8_H__
#define __CUDA_FP8_H__
#endif

#include <nccl.h>
