# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# onchip without CMake: pkg-config finds the installed onchip.pc under PREFIX, and nvcc compiles a file including
# <onchip/onchip.cuh> with nothing but its Cflags (device code only to unoptimized PTX: the headers are the point).
set(ENV{PKG_CONFIG_PATH} "${PREFIX}/share/pkgconfig")
execute_process(COMMAND "${PKG_CONFIG}" --cflags onchip OUTPUT_VARIABLE cflags RESULT_VARIABLE rc
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags onchip failed with PKG_CONFIG_PATH=${PREFIX}/share/pkgconfig")
endif()
get_filename_component(include "${PREFIX}/include" REALPATH)
string(REGEX REPLACE "^-I" "" given "${cflags}")
get_filename_component(given "${given}" REALPATH)
if(NOT given STREQUAL include)
  message(FATAL_ERROR "pkg-config gives '${cflags}', expected -I${include}")
endif()
file(WRITE "${WORK}/pkg_config.cu" "#include <onchip/onchip.cuh>\nint main() { return ONCHIP_VERSION_MAJOR >= 0 ? 0 : 1; }\n")
separate_arguments(flags UNIX_COMMAND "${cflags}")
execute_process(COMMAND "${NVCC}" -std=c++17 ${flags} -arch=compute_75 -Xcicc=-O0 -c "${WORK}/pkg_config.cu"
  -o "${WORK}/pkg_config.o" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc ${cflags} could not compile a file including <onchip/onchip.cuh>:\n${out}${err}")
endif()
message(STATUS "pkg-config: ${cflags}; nvcc compiled <onchip/onchip.cuh> with it")
