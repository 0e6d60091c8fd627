// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// onchip._core: the histogram functions for Python. The arguments are device pointers and sizes that the Python
// layer (onchip/_api.py) takes from the caller's arrays, so a call costs no DLPack exchange; the work is launched
// on the caller's stream, on the device that holds the samples, and nothing waits for it.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

#include "calls.hpp"

namespace nb = nanobind;
using onchip_py::dtype;

namespace {

/// Runs `f` with `device` current, then restores the caller's device.
template <class F>
cudaError_t on_device(int device, F&& f) {
  int previous = -1;
  if (cudaError_t e = cudaGetDevice(&previous); e != cudaSuccess) { return e; }
  if (previous != device) {
    if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess) { return e; }
  }
  const cudaError_t result = f();
  if (previous != device) { cudaSetDevice(previous); }
  return result;
}

void raise_on_error(cudaError_t e, const char* what) {
  if (e == cudaSuccess) { return; }
  if (e == cudaErrorInvalidValue) {
    const std::string message = onchip_py::last_error_message();
    throw nb::value_error((std::string(what) + ": " + (message.empty() ? "invalid argument" : message)).c_str());
  }
  cudaGetLastError();  // a launch error is not sticky; clear it so that the next call starts clean
  throw std::runtime_error(std::string(what) + ": CUDA error " + cudaGetErrorName(e) + ": " +
                           cudaGetErrorString(e));
}

dtype checked_dtype(int code, const char* name) {
  if (code < 0 || code >= static_cast<int>(dtype::count)) {
    throw nb::value_error((std::string(name) + ": unknown dtype code " + std::to_string(code)).c_str());
  }
  return static_cast<dtype>(code);
}

template <class T>
T* pointer(std::uintptr_t p) {
  return reinterpret_cast<T*>(p);
}

void fill(onchip_py::call_common& c, std::uintptr_t samples, std::size_t row_samples, std::size_t rows,
          std::size_t row_stride_bytes, std::uintptr_t hist, std::uintptr_t weights, int weight_dtype,
          std::uintptr_t ignored, bool accumulate, std::uintptr_t stream) {
  c.samples = pointer<const void>(samples);
  c.row_samples = row_samples;
  c.rows = rows;
  c.row_stride_bytes = row_stride_bytes;
  c.hist = pointer<void>(hist);
  c.weights = pointer<const void>(weights);
  c.weight = checked_dtype(weight_dtype, "weights");
  c.ignored = pointer<unsigned long long>(ignored);
  c.accumulate = accumulate;
  c.stream = pointer<CUstream_st>(stream);
}

/// Runs `member` of the sample type's functions on `device`, without the GIL; raises on error.
template <class Call>
void launch(int sample_dtype, int device, const Call& c,
            cudaError_t (*const onchip_py::sample_functions::*member)(const Call&)) {
  const auto& f = onchip_py::functions_of(checked_dtype(sample_dtype, "x"));
  cudaError_t e;
  {
    nb::gil_scoped_release unlocked;
    e = on_device(device, [&] { return (f.*member)(c); });
  }
  raise_on_error(e, "onchip.histogram");
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "onchip's compiled histogram functions (use the onchip package, not this module)";

  nb::dict codes;
  const char* names[] = {"uint8", "int8",    "uint16",   "int16",   "uint32", "int32",
                         "int64", "float16", "bfloat16", "float32", "float64"};
  for (int i = 0; i < static_cast<int>(dtype::count); ++i) { codes[names[i]] = i; }
  m.attr("dtype_codes") = codes;
  m.attr("architectures") = ONCHIP_PY_ARCHITECTURES;
  m.attr("cuda_runtime_version") = CUDART_VERSION;

  m.def(
      "histogram_even",
      [](std::uintptr_t samples, int sample_dtype, std::size_t row_samples, std::size_t rows,
         std::size_t row_stride_bytes, std::uintptr_t hist, int bins, double lower, double upper,
         bool integer_bounds, bool include_upper, std::uintptr_t weights, int weight_dtype, std::uintptr_t offsets,
         int segments, int channels, std::uintptr_t ignored, bool accumulate, std::uintptr_t stream, int device) {
        onchip_py::even_call c;
        fill(c, samples, row_samples, rows, row_stride_bytes, hist, weights, weight_dtype, ignored, accumulate,
             stream);
        c.bins = bins;
        c.lower = lower;
        c.upper = upper;
        c.integer_bounds = integer_bounds;
        c.include_upper = include_upper;
        c.offsets = pointer<const long long>(offsets);
        c.segments = segments;
        c.channels = channels;
        launch(sample_dtype, device, c, &onchip_py::sample_functions::even);
      },
      nb::arg("samples"), nb::arg("sample_dtype"), nb::arg("row_samples"), nb::arg("rows"),
      nb::arg("row_stride_bytes"), nb::arg("hist"), nb::arg("bins"), nb::arg("lower"), nb::arg("upper"),
      nb::arg("integer_bounds"), nb::arg("include_upper"), nb::arg("weights"), nb::arg("weight_dtype"),
      nb::arg("offsets"), nb::arg("segments"), nb::arg("channels"), nb::arg("ignored"), nb::arg("accumulate"),
      nb::arg("stream"), nb::arg("device"),
      "Even bins: one histogram of a 2-D region, of each segment, or of each interleaved channel (device "
      "pointers).");

  m.def(
      "histogram_range",
      [](std::uintptr_t samples, int sample_dtype, std::size_t row_samples, std::size_t rows,
         std::size_t row_stride_bytes, std::uintptr_t hist, std::uintptr_t levels, int num_levels,
         std::uintptr_t weights, int weight_dtype, std::uintptr_t ignored, bool accumulate, std::uintptr_t stream,
         int device) {
        onchip_py::range_call c;
        fill(c, samples, row_samples, rows, row_stride_bytes, hist, weights, weight_dtype, ignored, accumulate,
             stream);
        c.levels = pointer<const void>(levels);
        c.num_levels = num_levels;
        launch(sample_dtype, device, c, &onchip_py::sample_functions::range);
      },
      nb::arg("samples"), nb::arg("sample_dtype"), nb::arg("row_samples"), nb::arg("rows"),
      nb::arg("row_stride_bytes"), nb::arg("hist"), nb::arg("levels"), nb::arg("num_levels"), nb::arg("weights"),
      nb::arg("weight_dtype"), nb::arg("ignored"), nb::arg("accumulate"), nb::arg("stream"), nb::arg("device"),
      "Bins between levels (device pointers).");

  m.def(
      "device_count",
      [] {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
          cudaGetLastError();
          return 0;
        }
        return n;
      },
      "Number of CUDA devices this process can use (0 without a GPU or driver).");
}
