# Compiles SOURCE with nvcc (C++ STD, host compiler warnings -Wall -Wextra -Wpedantic -Wshadow -Wconversion) and
# fails when the compilation fails or any warning names a file under INCLUDE/onchip. The warnings are the host
# compiler's: device code goes only as far as unoptimized PTX, which takes seconds instead of minutes.
# TOOLKIT_INCLUDE: the toolkit's include folders, '|'-separated (CUDA 13 keeps CCCL in include/cccl).
set(includes "-I${INCLUDE}")
string(REPLACE "|" ";" toolkit "${TOOLKIT_INCLUDE}")
foreach(dir IN LISTS toolkit)
  list(APPEND includes "-I${dir}" "-I${dir}/cccl")
endforeach()
execute_process(
  COMMAND "${NVCC}" -std=c++${STD} -arch=compute_80 -Xcicc=-O0 ${includes} --extended-lambda
    -Xcompiler=-Wall,-Wextra,-Wpedantic,-Wshadow,-Wconversion -c "${SOURCE}" -o "${OUT}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(CONCAT log "${out}" "${err}")
if(NOT rc EQUAL 0)
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
