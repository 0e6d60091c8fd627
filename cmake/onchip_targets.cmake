# Flags for onchip's own tests, examples and benchmarks. Never applied to the onchip INTERFACE target.
function(onchip_internal_target target)
  target_link_libraries(${target} PRIVATE onchip::onchip)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--extended-lambda --Werror=all-warnings -Xcompiler=-Wall,-Wextra>
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
endfunction()
