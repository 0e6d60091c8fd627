# Architectures of onchip's own tests, examples, benchmarks and tools, when they need not be all of
# CMAKE_CUDA_ARCHITECTURES: the `ci` preset builds them for sm_75 alone (compile errors on the oldest architecture
# are caught there, while the instruction-contract probes compile the library's kernels for sm_80 and sm_90), which
# cuts the build on a machine without a GPU to a third. Empty: CMAKE_CUDA_ARCHITECTURES.
set(ONCHIP_TARGET_CUDA_ARCHITECTURES "" CACHE STRING "CUDA architectures of onchip's own test, example and tool targets")

# Flags for onchip's own tests, examples and benchmarks. Never applied to the onchip INTERFACE target.
function(onchip_internal_target target)
  if(ONCHIP_TARGET_CUDA_ARCHITECTURES)
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${ONCHIP_TARGET_CUDA_ARCHITECTURES}")
  endif()
  target_link_libraries(${target} PRIVATE onchip::onchip)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --Werror=all-warnings -Xcompiler=-Wall,-Wextra>
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
endfunction()
