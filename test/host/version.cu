// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <onchip/onchip.cuh>

#include "support/onchip_test.hpp"

TEST_CASE("version macros equal the CMake project version") {
  CHECK(ONCHIP_VERSION_MAJOR == ONCHIP_CMAKE_VERSION_MAJOR);
  CHECK(ONCHIP_VERSION_MINOR == ONCHIP_CMAKE_VERSION_MINOR);
  CHECK(ONCHIP_VERSION_PATCH == ONCHIP_CMAKE_VERSION_PATCH);
  CHECK(ONCHIP_VERSION == ONCHIP_CMAKE_VERSION_MAJOR * 10000 + ONCHIP_CMAKE_VERSION_MINOR * 100 +
                              ONCHIP_CMAKE_VERSION_PATCH);
}

TEST_CASE("checks follow NDEBUG unless chosen explicitly") {
#ifdef NDEBUG
  CHECK(ONCHIP_CHECKS == 0);
#else
  CHECK(ONCHIP_CHECKS == 1);
#endif
}
