// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The doctest runner, compiled once on the host and linked into every test executable.
// Built twice: the GPU flavour (ONCHIP_TEST_NEEDS_GPU) exits 77 when no CUDA device is usable, which ctest
// reports as "Skipped"; queries such as --list-test-cases still work without a GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include "support/onchip_test.hpp"

int main(int argc, char** argv) {
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  const int result = context.run();
  if (context.shouldExit()) { return result; }
#ifdef ONCHIP_TEST_NEEDS_GPU
  if (result == 0 && !onchip_test::gpu_available()) {
    std::puts("onchip: no usable CUDA device; GPU test cases were skipped (exit code 77)");
    return 77;
  }
#endif
  return result;
}
