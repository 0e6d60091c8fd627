# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Fails unless BINARY needs libcudart.so exactly when EXPECT_SHARED is ON (ldd lists the shared libraries it loads).
execute_process(COMMAND "${LDD}" "${BINARY}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ldd ${BINARY} failed:\n${out}${err}")
endif()
string(FIND "${out}" "libcudart.so" at)
if(EXPECT_SHARED AND at EQUAL -1)
  message(FATAL_ERROR "${BINARY} was built with the shared CUDA runtime but does not load libcudart.so:\n${out}")
elseif(NOT EXPECT_SHARED AND NOT at EQUAL -1)
  message(FATAL_ERROR "${BINARY} loads libcudart.so although its project kept CMake's default (static) runtime:\n${out}")
endif()
message(STATUS "${BINARY}: libcudart.so ${at}; expected shared: ${EXPECT_SHARED}")
