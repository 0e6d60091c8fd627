// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief Umbrella header: everything onchip offers.
 */
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/histogram.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/version>
#if defined(CCCL_VERSION) && CCCL_VERSION >= 2008000  // CUDA 12.9 and newer
#  include <onchip/stage.cuh>
#endif
#include <onchip/version.hpp>
