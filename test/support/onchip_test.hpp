// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Shared helpers for onchip's doctest suites. Host code only: kernels write results, the host asserts.
#pragma once

#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

namespace onchip_test {

/// True when a CUDA device is present and a context can be created on it. Cached.
inline bool gpu_available() {
  static const bool available = [] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
      (void)cudaGetLastError();
      return false;
    }
    return cudaFree(nullptr) == cudaSuccess;
  }();
  return available;
}

/// Owning device allocation of `n` elements of `T`.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : size_(n) {
    if (n > 0 && cudaMalloc(&data_, n * sizeof(T)) != cudaSuccess) {
      data_ = nullptr;
      FAIL("cudaMalloc of " << n * sizeof(T) << " bytes failed");
    }
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~device_buffer() {
    if (data_ != nullptr) { (void)cudaFree(data_); }
  }
  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Runs `command` through the shell with stderr merged into stdout; returns its exit status and output.
inline std::pair<int, std::string> run_capture(const std::string& command) {
  std::string output;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) { return {-1, "popen failed"}; }
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) { output += buffer; }
  return {pclose(pipe), output};
}

/// Runs onchip's check probe (test/support/check_probe.cu, path in CHECK_PROBE) in `mode`.
#ifdef CHECK_PROBE
inline std::pair<int, std::string> run_check_probe(const char* mode) {
  return run_capture(std::string("\"") + CHECK_PROBE + "\" " + mode);
}
#endif

}  // namespace onchip_test

/// Fails the current test case with the CUDA error's name and text when `expr` is not cudaSuccess.
#define ONCHIP_CUDA_REQUIRE(expr)                                                                      \
  do {                                                                                                 \
    const cudaError_t onchip_test_err_ = (expr);                                                       \
    const std::string onchip_test_msg_ = std::string(#expr) + " -> " +                                 \
                                         cudaGetErrorName(onchip_test_err_) + ": " +                   \
                                         cudaGetErrorString(onchip_test_err_);                         \
    INFO(onchip_test_msg_);                                                                            \
    REQUIRE(onchip_test_err_ == cudaSuccess);                                                          \
  } while (0)

/// A test case that needs a CUDA device: registered always (so --list-test-cases works everywhere),
/// skipped when no device is usable; the GPU runner then exits 77 and ctest reports "Skipped".
#define ONCHIP_GPU_TEST_CASE(name) TEST_CASE(name * doctest::skip(!onchip_test::gpu_available()))

/// In a test compiled as several units (onchip_add_test's PARTS): whether this unit holds part `k`'s test cases.
/// ONCHIP_TEST_PART -1 (a build that only compiles the GPU tests) holds every part in one unit.
#define ONCHIP_TEST_PART_IS(k) (ONCHIP_TEST_PART < 0 || ONCHIP_TEST_PART == (k))
