// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief `__restrict__` load helpers in a user kernel: a fused "how many readings exceed their limit, and by how
 * much" pass over two large arrays. The readings stream through once (cache::stream: 16-byte vectors, head and
 * tail peeled whatever the pointer's alignment); the small per-sensor limits are read through the read-only path
 * (readonly_view), where they stay cached.
 *
 *   restrict_loads [n]     (default 2^26 readings)
 */
#include <onchip/load.cuh>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// example-begin loads
constexpr int sensors = 1024;

__global__ void exceedances(const float* readings, std::size_t n, onchip::readonly_view<float> limits,
                            unsigned long long* count, double* excess) {
  unsigned long long c = 0;
  double e = 0;
  // Every thread of the grid takes whole 16-byte vectors of readings, four in flight at a time.
  onchip::grid_for_each<4>(readings, n, [&](float r, std::size_t i) {
    const float limit = limits[i % sensors];  // ld.global.nc: cached, shared by all threads
    if (r > limit) {
      ++c;
      e += r - limit;
    }
  });
  atomicAdd(count, c);
  atomicAdd(excess, e);
}
// example-end loads

int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "restrict_loads: no CUDA device found; this example needs an NVIDIA GPU\n");
    return 1;
  }
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 26;
  std::vector<float> readings(n + 1), limits(sensors);
  for (int s = 0; s < sensors; ++s) { limits[s] = 0.5f + 0.25f * static_cast<float>(s % 3); }
  unsigned state = 1;
  for (auto& r : readings) {
    state = state * 1664525u + 1013904223u;
    r = static_cast<float>(state >> 8) / 16777216.0f;  // [0, 1)
  }
  float *d_readings = nullptr, *d_limits = nullptr;
  unsigned long long* d_count = nullptr;
  double* d_excess = nullptr;
  cudaMalloc(&d_readings, (n + 1) * sizeof(float));
  cudaMalloc(&d_limits, sensors * sizeof(float));
  cudaMalloc(&d_count, sizeof(unsigned long long));
  cudaMalloc(&d_excess, sizeof(double));
  cudaMemcpy(d_readings, readings.data(), (n + 1) * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(d_limits, limits.data(), sensors * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_count, 0, sizeof(unsigned long long));
  cudaMemset(d_excess, 0, sizeof(double));
  // Start one element in, so the readings are not 16-byte aligned: the helpers peel a head and a tail.
  exceedances<<<132 * 8, 256>>>(d_readings + 1, n, onchip::readonly_view<float>(d_limits, sensors), d_count, d_excess);
  unsigned long long count = 0;
  double excess = 0;
  cudaMemcpy(&count, d_count, sizeof count, cudaMemcpyDeviceToHost);
  if (const cudaError_t e = cudaMemcpy(&excess, d_excess, sizeof excess, cudaMemcpyDeviceToHost); e != cudaSuccess) {
    std::fprintf(stderr, "restrict_loads: %s\n", cudaGetErrorString(e));
    return 1;
  }
  unsigned long long expected = 0;
  double expected_excess = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float r = readings[i + 1], limit = limits[i % sensors];
    if (r > limit) {
      ++expected;
      expected_excess += r - limit;
    }
  }
  std::printf("%llu of %zu readings exceed their limit, by %.1f in total (host: %llu, %.1f)\n", count, n, excess,
              expected, expected_excess);
  const bool ok = count == expected && std::abs(excess - expected_excess) <= 1e-6 * expected_excess;
  std::printf("%s\n", ok ? "matches the host" : "MISMATCH");
  return ok ? 0 : 1;
}
