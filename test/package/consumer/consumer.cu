// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Includes the umbrella header, compiles a kernel against it, and checks the header's version against the
// version CMake's package reported. Runs without a GPU (it launches nothing).
#include <onchip/onchip.cuh>

#include <cstdio>
#include <cstring>

__global__ void consumer_kernel(int* out) { *out = ONCHIP_VERSION; }

#define ONCHIP_STR2(x) #x
#define ONCHIP_STR(x) ONCHIP_STR2(x)

int main() {
  const char* header = ONCHIP_STR(ONCHIP_VERSION_MAJOR) "." ONCHIP_STR(ONCHIP_VERSION_MINOR) "." ONCHIP_STR(
      ONCHIP_VERSION_PATCH);
  std::printf("onchip header %s, CMake package %s\n", header, EXPECTED_VERSION);
  return std::strcmp(header, EXPECTED_VERSION) == 0 ? 0 : 1;
}
