// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a histogram call on a small input costs at least: the library's call against a hand-written kernel doing
// the least such a call must do (zero 1024 shared counters, read the samples, one shared atomic each, add the
// counters to the output), on the library's grid for that size, timed the same way (one call between two events,
// the GPU idle before it; median of 200), and that kernel with each thing the library's kernel does beyond it.
// "host": the time the host spends in the call or launch alone (it returns once its work is queued). f32 samples, 1024
// bins over [0, 1). The cooperative rows zero the output in the kernel on every grid (each block its share, then the
// grid's barrier: arrived at before the counting, waited at before the counts are added), so no call needs a memset.
// The cluster rows launch one thread-block cluster whose blocks add each other's counters through distributed
// shared memory and store the sums: one launch, no memset, no global atomic.
//   bench_small_calls [--out DIR] [--filter TEXT]
#include <onchip/histogram.cuh>

#include <cooperative_groups.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "harness.cuh"

namespace {

constexpr int bins = 1024, threads = 512;

__global__ void empty_kernel() {}

// Median microseconds the host spends in `call()` (the GPU idle before each), which returns once its work is
// queued.
template <class Call>
double host_median_us(const bench::options& o, Call&& call) {
  std::vector<double> host;
  for (int i = 0; i < o.runs; ++i) {
    BENCH_CHECK(cudaDeviceSynchronize());
    const auto start = std::chrono::steady_clock::now();
    call();
    host.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(host.begin(), host.end());
  return host[host.size() / 2];
}

// Kernel parameters of `Bytes` bytes (the library passes its job and plan by value).
template <int Bytes>
struct padding {
  unsigned char bytes[Bytes];
};

// How the least kernel's output is zeroed: by a memset before a launch of several blocks (one block stores its
// counts); by the one block at its start, its counts then added (the library's single-block zeroing); or by every
// block's share of it at the start of a cooperative launch, the blocks meeting at the grid's barrier before adding.
enum class zeroing { memset, one_block, grid_barrier };

// This block's share of the whole grid's samples (f32 in [0, 1), 1024 bins), one shared atomic each.
template <int Threads>
__device__ __forceinline__ void count_share(const float4* in, std::size_t n, unsigned* count) {
  bench::grid_vectors<Threads, 4>(reinterpret_cast<const uint4*>(in), n, [&](const uint4& v) {
    const float x[4] = {__uint_as_float(v.x), __uint_as_float(v.y), __uint_as_float(v.z), __uint_as_float(v.w)};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if (x[k] >= 0.0f && x[k] < 1.0f) { atomicAdd(count + min(static_cast<int>(x[k] * bins), bins - 1), 1u); }
    }
  });
}

// The template switches turn on what the library's kernel does beyond the least kernel, one at a time: counters
// in dynamic shared memory; the output's zeroing; launch bounds of two blocks per SM; kernel parameters of
// ParamBytes.
template <bool Dynamic, zeroing Zero, int MinBlocks, int ParamBytes>
__global__ void __launch_bounds__(threads, MinBlocks)
    least_kernel(const float4* in, std::size_t n, unsigned* out, padding<ParamBytes> pad) {
  __shared__ unsigned fixed[Dynamic ? 1 : bins];
  extern __shared__ unsigned dynamic[];
  unsigned* count = Dynamic ? dynamic : fixed;
  const bool grid_wide = Zero == zeroing::grid_barrier && gridDim.x > 1;
  if ((Zero == zeroing::one_block && gridDim.x == 1) || Zero == zeroing::grid_barrier) {
    for (int b = blockIdx.x * threads + threadIdx.x; b < bins; b += gridDim.x * threads) { out[b] = 0; }
  }
  for (int b = threadIdx.x; b < bins; b += threads) { count[b] = pad.bytes[0]; }
  namespace cg = cooperative_groups;
  cg::grid_group::arrival_token token{};
  if (grid_wide) { token = cg::this_grid().barrier_arrive(); }  // synchronizes the block too
  __syncthreads();
  count_share<threads>(in, n, count);
  if (grid_wide) { cg::this_grid().barrier_wait(std::move(token)); }
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += threads) {
    if (gridDim.x == 1 && Zero == zeroing::memset) {
      out[b] = count[b];
    } else if (count[b] != 0) {
      atomicAdd(out + b, count[b]);
    }
  }
}

// One thread-block cluster writes the whole output: each block counts its share into its own counters; after the
// cluster's barrier, block r adds every block's counters of the bins b = r (mod blocks) through distributed shared
// memory and stores the sums; a second barrier keeps each block's counters alive until the others have read them.
template <int Threads>
__global__ void __launch_bounds__(Threads) cluster_kernel(const float4* in, std::size_t n, unsigned* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // clusters need sm_90; main() launches this kernel only there
#else
  __shared__ unsigned count[bins];
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  for (int b = threadIdx.x; b < bins; b += Threads) { count[b] = 0; }
  __syncthreads();
  count_share<Threads>(in, n, count);
  cluster.sync();
  const unsigned blocks = cluster.num_blocks();
  for (unsigned b = cluster.block_rank() + blocks * threadIdx.x; b < bins; b += blocks * Threads) {
    unsigned sum = 0;
    for (unsigned r = 0; r < blocks; ++r) { sum += *cluster.map_shared_rank(count + b, r); }
    out[b] = sum;
  }
  cluster.sync();
#endif
}

// Launches cluster_kernel as one cluster of `blocks` blocks (more than 8 is a non-portable cluster size).
template <int Threads>
void launch_cluster(int blocks, const float4* in, std::size_t n, unsigned* out) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = blocks;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = blocks;
  config.blockDim = Threads;
  config.attrs = &attribute;
  config.numAttrs = 1;
  BENCH_CHECK(cudaLaunchKernelEx(&config, cluster_kernel<Threads>, in, n, out));
}

__global__ void fill(float* d, std::size_t n) {
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    d[i] = (bench::mix(i) >> 8) * (1.0f / 16777216.0f);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bench::options o = bench::parse(argc, argv);
  o.runs = 200;
  o.warmups = 5;
  const std::size_t largest = std::size_t{1} << 20;
  float* in = nullptr;
  unsigned *ours = nullptr, *least = nullptr, *joint = nullptr;
  BENCH_CHECK(cudaMalloc(&in, largest));
  BENCH_CHECK(cudaMalloc(&ours, bins * sizeof(unsigned)));
  BENCH_CHECK(cudaMalloc(&least, bins * sizeof(unsigned)));
  BENCH_CHECK(cudaMalloc(&joint, bins * sizeof(unsigned)));
  fill<<<bench::sm_count() * 4, 256>>>(in, largest / sizeof(float));
  bench::table t("Time per call on small inputs (microseconds, median of 200 calls, each timed alone)",
                 {"input", "empty kernel", "memset and empty kernel", "least kernel (grid)", "dynamic shared",
                  "zeroed in kernel, then added", "launch bounds (512, 2)", "320 bytes of parameters",
                  "cooperative, zeroed in kernel", "the same by cudaLaunchKernelEx", "one cluster of 8 x 1024",
                  "one cluster of 16 x 1024", "one cluster of 4 x 512", "onchip::histogram_even", "host: onchip",
                  "host: least kernel", "host: cooperative", "host: cluster of 8", "host: empty kernel",
                  "histograms agree"});
  const double empty_us = 1000 * bench::median_ms(o, [] { empty_kernel<<<1, 32>>>(); }, true);
  const double memset_us = 1000 * bench::median_ms(o, [&] {
    BENCH_CHECK(cudaMemsetAsync(least, 0, bins * sizeof(unsigned)));
    empty_kernel<<<1, 32>>>();
  }, true);
  const double empty_host_us = host_median_us(o, [] { empty_kernel<<<1, 32>>>(); });
  int device = 0, major = 0;
  BENCH_CHECK(cudaGetDevice(&device));
  BENCH_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  const bool clusters = major >= 9;  // thread-block clusters: sm_90 and later ("-" in their columns before)
  if (clusters) {
    BENCH_CHECK(cudaFuncSetAttribute(cluster_kernel<1024>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  }
  const int grids[] = {1, 1, 2, 8, 32};  // the library's plan on an H200 for these sizes
  int k = 0;
  for (std::size_t bytes = 4096; bytes <= largest; bytes *= 4, ++k) {
    const std::string size = std::to_string(bytes >> 10) + " KiB";
    if (!o.filter.empty() && size.find(o.filter) == std::string::npos) { continue; }
    const std::size_t n = bytes / sizeof(float);
    const int grid = grids[k];
    const auto* v = reinterpret_cast<const float4*>(in);
    auto time = [&](auto kernel, std::size_t smem, auto pad) {
      return 1000 * bench::median_ms(o, [&] {
        if (grid > 1) { BENCH_CHECK(cudaMemsetAsync(least, 0, bins * sizeof(unsigned))); }
        kernel<<<grid, threads, smem>>>(v, n / 4, least, pad);
      }, true);
    };
    const double least_us = time(least_kernel<false, zeroing::memset, 1, 1>, 0, padding<1>{});
    // The cooperative kernel, no memset: by cudaLaunchCooperativeKernel, or by cudaLaunchKernelEx with the
    // cooperative attribute.
    constexpr auto cooperative = least_kernel<false, zeroing::grid_barrier, 1, 1>;
    std::size_t count = n / 4;
    padding<1> pad{};
    auto launch_cooperative = [&] {
      void* args[] = {&v, &count, &joint, &pad};
      BENCH_CHECK(cudaLaunchCooperativeKernel(cooperative, grid, threads, args, 0, nullptr));
    };
    auto launch_ex = [&] {
      cudaLaunchAttribute attribute{};
      attribute.id = cudaLaunchAttributeCooperative;
      attribute.val.cooperative = 1;
      cudaLaunchConfig_t config{};
      config.gridDim = grid;
      config.blockDim = threads;
      config.attrs = &attribute;
      config.numAttrs = 1;
      BENCH_CHECK(cudaLaunchKernelEx(&config, cooperative, v, count, joint, pad));
    };
    const double cooperative_us = 1000 * bench::median_ms(o, launch_cooperative, true);
    std::vector<unsigned> c(bins);
    BENCH_CHECK(cudaMemcpy(c.data(), joint, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    const double ex_us = 1000 * bench::median_ms(o, launch_ex, true);
    std::vector<unsigned> e(bins);
    BENCH_CHECK(cudaMemcpy(e.data(), joint, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    const double cooperative_host_us = host_median_us(o, launch_cooperative);
    // One cluster of blocks, no memset: every histogram it writes is compared with the least kernel's.
    std::vector<unsigned> clustered[3];
    double cluster_us[3] = {0, 0, 0};
    const int cluster_blocks[3] = {8, 16, 4};
    for (int i = 0; i < 3 && clusters; ++i) {
      auto launch = [&] {
        if (i < 2) {
          launch_cluster<1024>(cluster_blocks[i], v, count, joint);
        } else {
          launch_cluster<512>(cluster_blocks[i], v, count, joint);
        }
      };
      BENCH_CHECK(cudaMemset(joint, 0xff, bins * sizeof(unsigned)));  // the kernel must write every bin
      cluster_us[i] = 1000 * bench::median_ms(o, launch, true);
      clustered[i].resize(bins);
      BENCH_CHECK(cudaMemcpy(clustered[i].data(), joint, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    }
    const double cluster_host_us =
        clusters ? host_median_us(o, [&] { launch_cluster<1024>(8, v, count, joint); }) : 0;
    auto cluster_cell = [&](double us) { return clusters ? bench::fixed(us, 1) : std::string("-"); };
    const double ours_us = 1000 * bench::median_ms(o, [&] {
      BENCH_CHECK(onchip::histogram_even(in, n, ours, bins, 0.0f, 1.0f));
    }, true);
    std::vector<unsigned> a(bins), b(bins);
    BENCH_CHECK(cudaMemcpy(a.data(), ours, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    BENCH_CHECK(cudaMemcpy(b.data(), least, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    const double host_us = host_median_us(o, [&] { BENCH_CHECK(onchip::histogram_even(in, n, ours, bins, 0.0f, 1.0f)); });
    const double least_host_us = host_median_us(o, [&] {
      least_kernel<false, zeroing::memset, 1, 1><<<grid, threads>>>(v, n / 4, least, padding<1>{});
    });
    t.add({size, bench::fixed(empty_us, 1), bench::fixed(memset_us, 1),
           bench::fixed(least_us, 1) + " (" + std::to_string(grid) + ")",
           bench::fixed(time(least_kernel<true, zeroing::memset, 1, 1>, bins * sizeof(unsigned), padding<1>{}), 1),
           bench::fixed(time(least_kernel<false, zeroing::one_block, 1, 1>, 0, padding<1>{}), 1),
           bench::fixed(time(least_kernel<false, zeroing::memset, 2, 1>, 0, padding<1>{}), 1),
           bench::fixed(time(least_kernel<false, zeroing::memset, 1, 320>, 0, padding<320>{}), 1),
           bench::fixed(cooperative_us, 1), bench::fixed(ex_us, 1), cluster_cell(cluster_us[0]),
           cluster_cell(cluster_us[1]), cluster_cell(cluster_us[2]), bench::fixed(ours_us, 1),
           bench::fixed(host_us, 1), bench::fixed(least_host_us, 1), bench::fixed(cooperative_host_us, 1),
           cluster_cell(cluster_host_us), bench::fixed(empty_host_us, 1),
           a == b && a == c && a == e && (!clusters || (a == clustered[0] && a == clustered[1] && a == clustered[2]))
               ? "yes"
               : "NO"});
  }
  t.print();
  t.save(o.out, "small_calls.csv");
  return 0;
}
