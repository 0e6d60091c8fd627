// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Readable errors for onchip's host functions: each returns a cudaError_t and leaves an explanation behind.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

namespace onchip::detail {

inline std::string& error_message() {
  thread_local std::string message;
  return message;
}

inline cudaError_t fail(cudaError_t error, std::string message) {
  error_message() = std::move(message);
  return error;
}

inline cudaError_t succeed() {
  error_message().clear();
  return cudaSuccess;
}

// Passes a CUDA error through, naming the call that returned it.
inline cudaError_t cuda_call(cudaError_t error, const char* where) {
  if (error == cudaSuccess) { return cudaSuccess; }
  return fail(error, std::string(where) + ": " + cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
}

}  // namespace onchip::detail

namespace onchip {
/// The message explaining the last error an onchip host function returned on this thread ("" after a success).
inline const char* last_error_message() noexcept { return detail::error_message().c_str(); }
}  // namespace onchip
