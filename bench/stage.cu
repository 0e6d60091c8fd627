// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Asynchronous staging: a 1 GiB stream reduced tile by tile through carved stages (grid_for_each_tile), against
// the hand-tuned read-ceiling kernel and onchip's register traversal (grid_for_each), for several stage counts
// and tile sizes; and a 7-point stencil over 1 GiB three ways: staged through onchip's stages, with direct global
// loads of every neighbour, and hand-written with cuda::memcpy_async and cuda::pipeline. Results: markdown on
// stdout, stage.csv and stage_stencil.csv in the output folder.
#include <onchip/load.cuh>
#include <onchip/smem.cuh>
#include <onchip/stage.cuh>

#include <cooperative_groups.h>
#include <cuda/pipeline>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "harness.cuh"

namespace {

template <int Stages, int TileBytes>
struct sum_plan {
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
    return onchip::staging<float, Stages>{TileBytes / sizeof(float)}(c);
  }
};

template <int Stages, int TileBytes>
__global__ void __launch_bounds__(256) staged_sum(const float* in, std::size_t n, double* out) {
  float sum = 0;
  onchip::grid_for_each_tile(onchip::carve(sum_plan<Stages, TileBytes>{}), in, n,
                             [&](const onchip::staged_tile<float>& t) {
                               for (std::size_t i = threadIdx.x; i < t.items.size(); i += blockDim.x) {
                                 sum += t.items[i];
                               }
                             });
  bench::block_add(static_cast<double>(sum), out);  // float partials are exact here, summed in double
}

__global__ void __launch_bounds__(256) register_sum(const float* in, std::size_t n, double* out) {
  float sum = 0;
  onchip::grid_for_each<4>(in, n, [&](float v, std::size_t) { sum += v; });
  bench::block_add(static_cast<double>(sum), out);  // float partials are exact here, summed in double
}

// The stencil: out[i] = sum over |d| <= 3 of w(d) * in[clamp(i + d)].
constexpr int radius = 3;
__host__ __device__ inline float weight(int d) { return 1.0f / static_cast<float>(1 + d * d); }
__device__ inline std::size_t clamped(std::size_t i, int d, std::size_t n) {
  return d < 0 && i < std::size_t(-d) ? 0 : (i + d >= n ? n - 1 : i + d);
}

template <int Stages, int Tile>
struct stencil_plan {
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
    return onchip::staging<float, Stages>{Tile, {radius, radius}}(c);
  }
};

template <int Stages, int Tile>
__global__ void __launch_bounds__(256) stencil_onchip(const float* in, std::size_t n, float* out) {
  onchip::grid_for_each_tile(onchip::carve(stencil_plan<Stages, Tile>{}), in, n,
                             [&](const onchip::staged_tile<float>& t) {
                               for (std::size_t i = t.begin + threadIdx.x; i < t.end; i += blockDim.x) {
                                 float s = 0;
                                 for (int d = -radius; d <= radius; ++d) { s += weight(d) * t[clamped(i, d, n)]; }
                                 out[i] = s;
                               }
                             });
}

__global__ void __launch_bounds__(256) stencil_direct(const float* __restrict__ in, std::size_t n,
                                                      float* __restrict__ out) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float s = 0;
    for (int d = -radius; d <= radius; ++d) { s += weight(d) * __ldg(in + clamped(i, d, n)); }
    out[i] = s;
  }
}

// Hand-written with libcu++: the halo rounded up to 4 floats so every copy is 16-byte aligned (n and Tile must
// be multiples of 4), Stages tiles in flight through cuda::pipeline, one block-wide memcpy_async per tile.
template <int Stages, int Tile>
__global__ void __launch_bounds__(256) stencil_libcudacxx(const float* in, std::size_t n, float* out) {
  constexpr std::size_t pad = 4, stride = Tile + 2 * pad;
  extern __shared__ float4 stencil_window[];
  // libcu++'s documented way to keep a pipeline's state in shared memory (its constructor runs at block start).
#pragma nv_diag_suppress static_var_with_dynamic_init
  float* buffers = reinterpret_cast<float*>(stencil_window);
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, Stages> state;
  auto block = cooperative_groups::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const std::size_t tiles = n / Tile;
  std::size_t fetch = blockIdx.x;
  auto fetch_next = [&](int s) {
    pipe.producer_acquire();
    if (fetch < tiles) {
      const std::size_t lo = fetch * Tile >= pad ? fetch * Tile - pad : 0;
      const std::size_t hi = (fetch + 1) * Tile + pad <= n ? (fetch + 1) * Tile + pad : n;
      cuda::memcpy_async(block, buffers + s * stride + (lo + pad - fetch * Tile), in + lo,
                         cuda::aligned_size_t<16>((hi - lo) * sizeof(float)), pipe);
    }
    pipe.producer_commit();
    fetch += gridDim.x;
  };
  for (int s = 0; s < Stages; ++s) { fetch_next(s); }
  int s = 0;
  for (std::size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    pipe.consumer_wait();
    const float* tile = buffers + s * stride + pad;  // tile[k] is in[t * Tile + k]
    for (std::size_t k = threadIdx.x; k < Tile; k += blockDim.x) {
      const std::size_t i = t * Tile + k;
      float sum = 0;
      for (int d = -radius; d <= radius; ++d) { sum += weight(d) * tile[clamped(i, d, n) - t * Tile]; }
      out[i] = sum;
    }
    __syncthreads();
    pipe.consumer_release();
    fetch_next(s);
    s = (s + 1) % Stages;
  }
}

template <class Kernel>
int full_grid(Kernel* kernel, std::size_t smem) {
  int per_sm = 0;
  BENCH_CHECK(onchip::prepare_dynamic_smem(kernel, smem));
  BENCH_CHECK(onchip::blocks_per_sm(&per_sm, kernel, 256, smem));
  return bench::sm_count() * per_sm;
}

struct sum_case {
  std::string name;
  std::size_t smem;
  int grid;
  void (*launch)(int grid, std::size_t smem, const float* in, std::size_t n, double* out);
};

template <int Stages, int TileBytes>
sum_case staged_case() {
  const std::size_t smem = onchip::smem_bytes(sum_plan<Stages, TileBytes>{});
  return {"grid_for_each_tile, " + std::to_string(Stages) + " stages of " + std::to_string(TileBytes / 1024) +
              " KiB",
          smem, full_grid(staged_sum<Stages, TileBytes>, smem),
          [](int grid, std::size_t smem, const float* in, std::size_t n, double* out) {
            staged_sum<Stages, TileBytes><<<grid, 256, smem>>>(in, n, out);
          }};
}

void run_sums(const bench::options& o, const float* in, std::size_t n, double expected, unsigned* scratch) {
  bench::table t("Staged reduction of 1 GiB of f32 (H200: GB/s, median)",
                 {"case", "blocks", "shared bytes per block", "GB/s", "% of read ceiling", "sum exact"});
  const std::size_t bytes = n * sizeof(float);
  const double ceiling = bytes / bench::read_ceiling_ms(o, in, bytes, scratch) / 1e6;
  t.add({"read ceiling (hand-tuned register loads)", std::to_string(bench::sm_count() * 8), "0", bench::fixed(ceiling),
         "100.0", "-"});
  std::vector<sum_case> cases = {
      {"grid_for_each<4> (registers, no staging)", 0, full_grid(register_sum, 0),
       [](int grid, std::size_t, const float* in, std::size_t n, double* out) {
         register_sum<<<grid, 256>>>(in, n, out);
       }},
      staged_case<2, 16384>(), staged_case<3, 8192>(), staged_case<3, 16384>(), staged_case<4, 8192>(),
      staged_case<4, 16384>(), staged_case<4, 32768>(), staged_case<2, 65536>()};
  double* sum = nullptr;
  BENCH_CHECK(cudaMalloc(&sum, sizeof(double)));
  for (const auto& c : cases) {
    if (!o.filter.empty() && c.name.find(o.filter) == std::string::npos) { continue; }
    BENCH_CHECK(cudaMemset(sum, 0, sizeof(double)));
    c.launch(c.grid, c.smem, in, n, sum);
    double got = 0;
    BENCH_CHECK(cudaMemcpy(&got, sum, sizeof(double), cudaMemcpyDeviceToHost));
    const double ms = bench::median_ms(o, [&] { c.launch(c.grid, c.smem, in, n, sum); });
    const double gbs = bytes / ms / 1e6;
    t.add({c.name, std::to_string(c.grid), std::to_string(c.smem), bench::fixed(gbs),
           bench::fixed(100.0 * gbs / ceiling, 1), got == expected ? "yes" : "NO"});
  }
  BENCH_CHECK(cudaFree(sum));
  t.print();
  t.save(o.out, "stage.csv");
}

void run_stencils(const bench::options& o, const float* in, std::size_t n, const std::vector<float>& host) {
  constexpr int stages = 3, tile = 4096;
  float *out = nullptr, *reference = nullptr;
  BENCH_CHECK(cudaMalloc(&out, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&reference, n * sizeof(float)));
  const std::size_t onchip_smem = onchip::smem_bytes(stencil_plan<stages, tile>{});
  const std::size_t hand_smem = stages * (tile + 8) * sizeof(float);
  struct version {
    std::string name;
    std::function<void()> launch;
  };
  const int g_onchip = full_grid(stencil_onchip<stages, tile>, onchip_smem);
  const int g_hand = full_grid(stencil_libcudacxx<stages, tile>, hand_smem);
  const int g_direct = full_grid(stencil_direct, 0);
  const std::vector<version> versions = {
      {"onchip grid_for_each_tile (3 stages of 4096 + 6 floats)",
       [&] { stencil_onchip<stages, tile><<<g_onchip, 256, onchip_smem>>>(in, n, out); }},
      {"direct global loads of every neighbour (__ldg)", [&] { stencil_direct<<<g_direct, 256>>>(in, n, out); }},
      {"hand-written cuda::memcpy_async + cuda::pipeline (3 stages, halo padded to 16 bytes)",
       [&] { stencil_libcudacxx<stages, tile><<<g_hand, 256, hand_smem>>>(in, n, out); }}};
  // Reference on the device (direct loads), spot-checked on the host.
  stencil_direct<<<g_direct, 256>>>(in, n, reference);
  std::vector<float> ref(n);
  BENCH_CHECK(cudaMemcpy(ref.data(), reference, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::size_t host_wrong = 0;
  for (std::size_t i = 0; i < n; i += n / 4099 + 1) {
    float want = 0;
    for (int d = -radius; d <= radius; ++d) {
      const long long j = std::min<long long>(std::max<long long>(static_cast<long long>(i) + d, 0), n - 1);
      want += weight(d) * host[j];
    }
    host_wrong += std::fabs(ref[i] - want) > 1e-5f * (1 + std::fabs(want));
  }
  bench::table t("7-point stencil over 1 GiB of f32 (H200, median)",
                 {"version", "ms", "GB/s (read + written)", "time / onchip", "same as reference"});
  double onchip_ms = 0;
  std::vector<float> got(n);
  for (const auto& v : versions) {
    BENCH_CHECK(cudaMemset(out, 0, n * sizeof(float)));
    v.launch();
    BENCH_CHECK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) { differ += std::fabs(got[i] - ref[i]) > 1e-5f * (1 + std::fabs(ref[i])); }
    const double ms = bench::median_ms(o, v.launch);
    if (onchip_ms == 0) { onchip_ms = ms; }
    t.add({v.name, bench::fixed(ms, 3), bench::fixed(2.0 * n * sizeof(float) / ms / 1e6),
           bench::fixed(ms / onchip_ms, 2),
           differ == 0 && host_wrong == 0 ? "yes" : "NO (" + std::to_string(differ + host_wrong) + ")"});
  }
  t.print();
  t.save(o.out, "stage_stencil.csv");
  BENCH_CHECK(cudaFree(out));
  BENCH_CHECK(cudaFree(reference));
}

}  // namespace

int main(int argc, char** argv) {
  const bench::options o = bench::parse(argc, argv);
  const std::size_t n = std::size_t{1} << 28;  // 1 GiB of f32
  std::vector<float> host(n);
  double expected = 0;
  for (std::size_t i = 0; i < n; ++i) {
    host[i] = static_cast<float>((i * 2654435761u >> 7) % 100);  // small integers: every partial sum is exact
    expected += host[i];
  }
  float* in = nullptr;
  unsigned* scratch = nullptr;
  BENCH_CHECK(cudaMalloc(&in, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&scratch, sizeof(unsigned)));
  BENCH_CHECK(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  run_sums(o, in, n, expected, scratch);
  if (o.filter.empty() || std::string("stencil").find(o.filter) != std::string::npos) { run_stencils(o, in, n, host); }
  BENCH_CHECK(cudaFree(in));
  BENCH_CHECK(cudaFree(scratch));
  return 0;
}
