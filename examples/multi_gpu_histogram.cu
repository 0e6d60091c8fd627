// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief One histogram over several GPUs: each GPU histograms its shard of the data with onchip, then NCCL's
 * all-reduce sums the per-GPU histograms so that every GPU holds the total. Runs on any number of GPUs >= 1
 * (one process, one NCCL communicator per GPU).
 *
 *   multi_gpu_histogram [samples per GPU]     (default 2^28 bytes per GPU)
 */
#include <onchip/histogram.cuh>

#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

bool ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) { std::fprintf(stderr, "multi_gpu_histogram: %s: %s\n", what, cudaGetErrorString(e)); }
  return e == cudaSuccess;
}

bool ok(ncclResult_t e, const char* what) {
  if (e != ncclSuccess) { std::fprintf(stderr, "multi_gpu_histogram: %s: %s\n", what, ncclGetErrorString(e)); }
  return e == ncclSuccess;
}

// The shard of GPU g: bytes of a hash, skewed towards small values, different on every GPU.
__global__ void make_shard(unsigned char* out, size_t n, int gpu) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    unsigned long long h = (i + 1) * 0x9e3779b97f4a7c15ull + static_cast<unsigned long long>(gpu) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    out[i] = static_cast<unsigned char>((h & 0xff) * ((h >> 8) & 0xff) >> 8);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
    std::fprintf(stderr, "multi_gpu_histogram: no CUDA device found; this example needs at least one NVIDIA GPU\n");
    return 1;
  }
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t{1} << 28;
  // example-begin multi
  std::vector<ncclComm_t> comms(gpus);
  if (!ok(ncclCommInitAll(comms.data(), gpus, nullptr), "ncclCommInitAll")) { return 1; }
  std::vector<unsigned char*> shard(gpus);
  std::vector<unsigned long long*> hist(gpus);
  std::vector<cudaStream_t> stream(gpus);
  for (int g = 0; g < gpus; ++g) {
    cudaSetDevice(g);
    cudaStreamCreate(&stream[g]);
    cudaMalloc(&shard[g], n);
    cudaMalloc(&hist[g], 256 * sizeof(unsigned long long));
    make_shard<<<1024, 256, 0, stream[g]>>>(shard[g], n, g);
    // Each GPU: its shard's histogram (64-bit counters), on its own stream.
    if (!ok(onchip::histogram_even(shard[g], n, hist[g], 256, 0, 256, stream[g]), "onchip::histogram_even")) {
      return 1;
    }
  }
  // Then the sum over GPUs, in place, on every GPU.
  ncclGroupStart();
  for (int g = 0; g < gpus; ++g) {
    ncclAllReduce(hist[g], hist[g], 256, ncclUint64, ncclSum, comms[g], stream[g]);
  }
  if (!ok(ncclGroupEnd(), "ncclAllReduce")) { return 1; }
  // example-end multi
  std::vector<std::vector<unsigned long long>> result(gpus, std::vector<unsigned long long>(256));
  for (int g = 0; g < gpus; ++g) {
    cudaSetDevice(g);
    if (!ok(cudaStreamSynchronize(stream[g]), "cudaStreamSynchronize")) { return 1; }
    cudaMemcpy(result[g].data(), hist[g], 256 * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  }
  // Check: every GPU holds the same total, equal to the host's histogram of all shards.
  std::vector<unsigned long long> expected(256);
  std::vector<unsigned char> bytes(n);
  for (int g = 0; g < gpus; ++g) {
    cudaSetDevice(g);
    cudaMemcpy(bytes.data(), shard[g], n, cudaMemcpyDeviceToHost);
    for (unsigned char b : bytes) { ++expected[b]; }
  }
  bool same = true;
  for (int g = 0; g < gpus; ++g) { same = same && result[g] == expected; }
  unsigned long long total = 0;
  for (auto c : result[0]) { total += c; }
  std::printf("%d GPU%s, %zu bytes each: %llu samples in the all-reduced histogram, bin 0 holds %llu\n", gpus,
              gpus == 1 ? "" : "s", n, total, result[0][0]);
  std::printf("%s\n", same ? "every GPU's histogram matches the host" : "MISMATCH");
  for (int g = 0; g < gpus; ++g) {
    ncclCommDestroy(comms[g]);
    cudaSetDevice(g);
    cudaFree(shard[g]);
    cudaFree(hist[g]);
    cudaStreamDestroy(stream[g]);
  }
  return same ? 0 : 1;
}
