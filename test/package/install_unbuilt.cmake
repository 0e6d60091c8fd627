# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Configures SOURCE into WORK/build as README's install command does (the `install` preset), builds nothing, installs into WORK/prefix,
# and checks that the headers and the CMake package are there and onchip-hist is not.
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND "${CMAKE_COMMAND}" --preset install -B "${WORK}/build"
                WORKING_DIRECTORY "${SOURCE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring failed:\n${out}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${WORK}/build" --prefix "${WORK}/prefix"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install on an unbuilt tree failed:\n${out}")
endif()
foreach(file IN ITEMS include/onchip/onchip.cuh include/onchip/histogram.cuh include/onchip/detail/histogram/plan.cuh)
  if(NOT EXISTS "${WORK}/prefix/${file}")
    message(FATAL_ERROR "${file} was not installed:\n${out}")
  endif()
endforeach()
file(GLOB_RECURSE configs "${WORK}/prefix/*/onchipConfig.cmake")  # lib/ or lib64/
if(NOT configs)
  message(FATAL_ERROR "the CMake package was not installed:\n${out}")
endif()
if(EXISTS "${WORK}/prefix/bin/onchip-hist")
  message(FATAL_ERROR "onchip-hist was installed by the default install; it belongs to the tools component")
endif()
message(STATUS "installed without building: headers and ${configs}")
