// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The partition path where the device runs code compiled for an earlier architecture: this test is built as
// PTX for sm_80 only, which the driver compiles for the device at run time. From sm_90 on the plan gives the
// scatter a shape of its own; code compiled for an earlier architecture must keep the earlier one (the sm_90
// shape's kernel only traps there), so these calls must run and count every sample, against the host reference.
#include <onchip/histogram.cuh>

#include <cstdint>

#include "histogram_common.cuh"

using onchip::detail::histogram_path;

ONCHIP_GPU_TEST_CASE("the partition path from PTX of an earlier architecture: f32 and u32 keys, 2^20 bins") {
  cudaFuncAttributes a{};
  ONCHIP_CUDA_REQUIRE(cudaFuncGetAttributes(
      &a, onchip::detail::partition_scatter_kernel<
              onchip::detail::histogram_job<1, 1, float, onchip::detail::no_weights,
                                            onchip::detail::plain_binners<1, onchip::bin_even<float>>, unsigned>,
              1024, onchip::detail::tuning::partition_scatter_blocks, 16>));
  CHECK(a.ptxVersion == 80);  // what this test is about: the code was compiled for sm_80
  for (std::size_t n : {std::size_t{100003}, hist_test::sized((std::size_t{1} << 21) + 5)}) {
    INFO(n << " samples");
    const auto f32 = hist_test::make_samples<float>(n, 0.0, 1.0, hist_test::distribution::uniform, 41);
    hist_test::check_even<unsigned>(f32, 1 << 20, 0.0f, 1.0f, 4, histogram_path::partition);  // misaligned
    hist_test::check_even<unsigned>(hist_test::make_samples<std::uint32_t>(n, 0.0, 4294967296.0,
                                                                           hist_test::distribution::skewed, 42),
                                    1 << 20, 0LL, 4294967296LL, 0, histogram_path::partition);
  }
}
