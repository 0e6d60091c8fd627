# SPDX-FileCopyrightText: 2026 onchip developers
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Lists the .deb cpack built in DEB_DIR, checks that it holds the headers, the CMake package, onchip-hist and the
# licence (and no build-tree files), checks its control fields, and unpacks it into ROOT.
file(GLOB debs "${DEB_DIR}/onchip_*.deb")
list(LENGTH debs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one onchip_*.deb in ${DEB_DIR}, found: ${debs}")
endif()
execute_process(COMMAND "${DPKG_DEB}" -c "${debs}" OUTPUT_VARIABLE contents RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dpkg-deb -c failed on ${debs}")
endif()
foreach(path IN ITEMS
    ./usr/include/onchip/onchip.cuh ./usr/include/onchip/histogram.cuh ./usr/include/onchip/smem.cuh
    ./usr/include/onchip/load.cuh ./usr/include/onchip/version.hpp
    ./usr/include/onchip/detail/histogram/kernels/bytes.cuh
    ./usr/lib/cmake/onchip/onchipConfig.cmake ./usr/lib/cmake/onchip/onchipConfigVersion.cmake
    ./usr/lib/cmake/onchip/onchipTargets.cmake ./usr/bin/onchip-hist
    ./usr/share/doc/onchip/copyright ./usr/share/doc/onchip/LICENSE ./usr/share/pkgconfig/onchip.pc)
  string(FIND "${contents}" " ${path}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${debs} lacks ${path}; it holds:\n${contents}")
  endif()
endforeach()
foreach(unwanted IN ITEMS CMakeFiles CMakeCache bench_ examples/)
  string(FIND "${contents}" "${unwanted}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${debs} holds build-tree or example files (${unwanted}):\n${contents}")
  endif()
endforeach()
execute_process(COMMAND "${DPKG_DEB}" -f "${debs}" Package Version Architecture Depends Recommends
  OUTPUT_VARIABLE fields)
foreach(field IN ITEMS "Package: onchip" "Version: " "Architecture: " "Depends: cmake" "Recommends: nvidia-cuda-toolkit")
  string(FIND "${fields}" "${field}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "control field '${field}' missing:\n${fields}")
  endif()
endforeach()
file(REMOVE_RECURSE "${ROOT}")
execute_process(COMMAND "${DPKG_DEB}" -x "${debs}" "${ROOT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT EXISTS "${ROOT}/usr/bin/onchip-hist")
  message(FATAL_ERROR "dpkg-deb -x could not unpack ${debs} into ${ROOT}")
endif()
# The Debian copyright file names the licence and holds its whole text (the LLVM exception's last words too).
file(READ "${ROOT}/usr/share/doc/onchip/copyright" copyright)
foreach(text IN ITEMS "License: Apache-2.0 WITH LLVM-exception" " Apache License" " only with respect to the Combined")
  string(FIND "${copyright}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the .deb's copyright file lacks '${text}':\n${copyright}")
  endif()
endforeach()
message(STATUS "${debs}:\n${fields}${contents}")
