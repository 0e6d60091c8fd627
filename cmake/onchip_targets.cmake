# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Architectures of onchip's own tests, examples, benchmarks and tools, when they need not be all of
# CMAKE_CUDA_ARCHITECTURES (the `ci` preset: sm_75, while the instruction-contract probes compile the library's
# kernels for sm_80 and sm_90). Empty: CMAKE_CUDA_ARCHITECTURES.
set(ONCHIP_TARGET_CUDA_ARCHITECTURES "" CACHE STRING "CUDA architectures of onchip's own test, example and tool targets")
# On a machine without a GPU the targets that need one to run (GPU tests, examples, benchmarks, onchip-hist) are
# only compiled, to catch compile errors: with this ON they are compiled to unoptimized PTX for the first of those
# architectures (no SASS; the front end, templates and static_asserts still run in full), which takes a fraction of
# an optimized build. Binaries built so still run on a GPU (the driver compiles the PTX), slowly: never measure them.
option(ONCHIP_GPU_TARGETS_COMPILE_ONLY "Compile onchip's GPU-only targets to unoptimized PTX (compile checks only)" OFF)

# Flags for onchip's own tests, examples and benchmarks. Never applied to the onchip INTERFACE target.
# onchip_internal_target(<target> [GPU]): GPU marks a target that needs a GPU to run.
function(onchip_internal_target target)
  set(archs "${ONCHIP_TARGET_CUDA_ARCHITECTURES}")
  if(NOT archs)
    set(archs "${CMAKE_CUDA_ARCHITECTURES}")
  endif()
  if("GPU" IN_LIST ARGN AND ONCHIP_GPU_TARGETS_COMPILE_ONLY)
    list(GET archs 0 first)
    string(REGEX REPLACE "-(real|virtual)$" "" first "${first}")
    set(archs "${first}-virtual")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcicc=-O0>)
  endif()
  if(ONCHIP_TARGET_CUDA_ARCHITECTURES OR ONCHIP_GPU_TARGETS_COMPILE_ONLY)
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${archs}")
  endif()
  target_link_libraries(${target} PRIVATE onchip::onchip)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --Werror=all-warnings -Xcompiler=-Wall,-Wextra>
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
endfunction()
