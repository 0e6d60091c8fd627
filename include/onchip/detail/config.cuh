// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief onchip's configuration macros. Every public header includes this first.
 */
#pragma once

#include <onchip/version.hpp>

#if defined(__CUDACC__) || defined(__CUDA_ARCH__)
/// Marks a function callable from host and device code.
#  define ONCHIP_HOST_DEVICE __host__ __device__
/// Marks a device-only function.
#  define ONCHIP_DEVICE __device__
/// Forces inlining (device and host).
#  define ONCHIP_FORCEINLINE __forceinline__
#else
#  define ONCHIP_HOST_DEVICE
#  define ONCHIP_DEVICE
#  define ONCHIP_FORCEINLINE inline __attribute__((always_inline))
#endif

/// Before a loop in a host/device function: unrolled on the device (constant indices keep arrays in registers);
/// host compilers do not know the pragma.
#if defined(__CUDA_ARCH__)
#  define ONCHIP_UNROLL _Pragma("unroll")
#else
#  define ONCHIP_UNROLL
#endif

/// Before a loop in a host/device function: kept a loop on the device (a rare path that should stay small).
#if defined(__CUDA_ARCH__)
#  define ONCHIP_NO_UNROLL _Pragma("unroll 1")
#else
#  define ONCHIP_NO_UNROLL
#endif

/// Before a host/device template that calls a user's callable: lets host-only callables (plain lambdas) be used
/// from host code without nvcc's execution-space warning. The callable still must be device-callable on device.
#if defined(__CUDACC__) && !defined(__clang__)
#  define ONCHIP_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#else
#  define ONCHIP_EXEC_CHECK_DISABLE
#endif

/**
 * @def ONCHIP_CHECKS
 * @brief 1 enables onchip's device-side checks (bounds, alignment, preconditions): a failed check prints what
 * was requested and what was available, then traps. Default: on unless `NDEBUG` is defined. Define it to 0 or 1
 * before including onchip (or with `-DONCHIP_CHECKS=...`) to choose explicitly.
 */
#ifndef ONCHIP_CHECKS
#  ifdef NDEBUG
#    define ONCHIP_CHECKS 0
#  else
#    define ONCHIP_CHECKS 1
#  endif
#endif

#if __cplusplus < 201703L && !defined(_MSVC_LANG)
#  error "onchip requires C++17 or newer: compile with -std=c++17 (CMake: cuda_std_17 / cxx_std_17)."
#endif
