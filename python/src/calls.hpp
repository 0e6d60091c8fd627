// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the Python module asks of the compiled histogram functions: one call described by plain values (device
// pointers, sizes, bins), so that the module itself is host C++ and each sample type's kernels are compiled in a
// translation unit of their own (samples.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace onchip_py {

/// The element types the package knows, samples, weights and counters alike.
enum class dtype : int { u8, i8, u16, i16, u32, i32, i64, f16, bf16, f32, f64, count };

/// What every call has: the samples as rows (a 2-D region; one row for 1-D input), the histogram, optional
/// weights, an optional count of ignored samples, and the stream.
struct call_common {
  const void* samples = nullptr;
  std::size_t row_samples = 0;  // samples in a row (all of them for 1-D input)
  std::size_t rows = 1;
  std::size_t row_stride_bytes = 0;
  void* hist = nullptr;  // long long counters, or the weights' type for weighted calls
  const void* weights = nullptr;
  dtype weight = dtype::f64;
  unsigned long long* ignored = nullptr;
  bool accumulate = false;
  cudaStream_t stream = nullptr;
};

/// An even-bins call: one histogram of rows, or one per segment, or one per interleaved channel.
struct even_call : call_common {
  int bins = 0;
  double lower = 0, upper = 0;
  bool integer_bounds = false;         // 16-bit integer samples: bounds as int, bins exact
  bool include_upper = false;          // the last bin holds upper too (floating-point bounds)
  const long long* offsets = nullptr;  // segments + 1 offsets: one histogram per segment
  int segments = 0;
  int channels = 1;  // interleaved channels, each its own histogram (8- and 16-bit integer samples)
};

/// A call with bins between levels (the levels in the samples' level type: float for 16-bit and 32-bit floats,
/// double for the rest).
struct range_call : call_common {
  const void* levels = nullptr;
  int num_levels = 0;
};

/// One sample type's compiled functions.
struct sample_functions {
  cudaError_t (*even)(const even_call&);
  cudaError_t (*range)(const range_call&);
};

/// The functions for samples of type `t` (every dtype but none).
const sample_functions& functions_of(dtype t);

}  // namespace onchip_py

namespace onchip_py {
/// The message of the calling thread's last failed onchip call (onchip::last_error_message).
const char* last_error_message() noexcept;
}  // namespace onchip_py
