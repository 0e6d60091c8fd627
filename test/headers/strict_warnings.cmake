# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Judges the log of a strict-warnings compile (written by the build through test/support/record_compile.py: nvcc,
# C++ STD, host compiler warnings -Wall -Wextra -Wpedantic -Wshadow -Wconversion, device code only as far as
# unoptimized PTX): fails when the compilation failed or any warning names a file under include/onchip.
file(READ "${LOG}" log)
if(NOT log MATCHES "exit status: 0\n$")
  message(FATAL_ERROR "the strict-warnings consumer did not compile (C++${STD}):\n${log}")
endif()
# gcc prints "file:line:col: warning:" and the text on the next line. nvcc's own line directives in the files it
# generates ("style of line directive is a GCC extension") are attributed to whatever line they point at: not ours.
string(REGEX REPLACE "warning:[ \n]*style of line directive is a GCC extension" "(nvcc line directive)" log "${log}")
string(REGEX MATCHALL "[^\n]*include/onchip/[^\n]*[Ww]arning[^\n]*\n[^\n]*" ours "${log}")
if(ours)
  list(JOIN ours "\n" text)
  message(FATAL_ERROR "warnings in onchip's headers (C++${STD}):\n${text}")
endif()
message(STATUS "C++${STD}: no warning names an onchip header")
