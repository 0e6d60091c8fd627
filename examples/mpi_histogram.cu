// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief One histogram over the GPUs of several processes, started by MPI (`mpirun`/`srun`, one GPU per rank):
 * rank 0 makes the NCCL unique id and MPI broadcasts it, each rank histograms its shard on its own GPU with
 * onchip, then NCCL's all-reduce sums the 64-bit histograms so that every rank holds the total. Each rank checks
 * the total against its host's count of its shard summed by MPI, and prints the time of its histogram and of the
 * all-reduce.
 *
 *   mpirun -np 4 mpi_histogram [file]        each rank reads its contiguous part of the file's bytes
 *   mpirun -np 4 mpi_histogram --bytes N     each rank generates N bytes (default 2^28)
 *
 * A rank uses GPU (local rank % GPUs on its node); the local rank comes from MPI's shared-memory split.
 */
#include <onchip/histogram.cuh>

#include <mpi.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

int rank_ = 0;

bool ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "mpi_histogram[%d]: %s: %s\n", rank_, what, cudaGetErrorString(e));
  }
  return e == cudaSuccess;
}

bool ok(ncclResult_t e, const char* what) {
  if (e != ncclSuccess) {
    std::fprintf(stderr, "mpi_histogram[%d]: %s: %s\n", rank_, what, ncclGetErrorString(e));
  }
  return e == ncclSuccess;
}

// Generated shard of a rank: bytes of a hash, skewed towards small values, different on every rank.
__global__ void make_shard(unsigned char* out, size_t n, int rank) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    unsigned long long h =
        (i + 1) * 0x9e3779b97f4a7c15ull + static_cast<unsigned long long>(rank) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    out[i] = static_cast<unsigned char>((h & 0xff) * ((h >> 8) & 0xff) >> 8);
  }
}

// This rank's part of a file: bytes [size * rank / ranks, size * (rank + 1) / ranks).
bool read_part(const char* path, int rank, int ranks, std::vector<unsigned char>& out) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) { return false; }
  const auto size = static_cast<unsigned long long>(f.tellg());
  const auto begin = size * rank / ranks, end = size * (rank + 1) / ranks;
  out.resize(end - begin);
  f.seekg(static_cast<std::streamoff>(begin));
  return static_cast<bool>(f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size())));
}

int run(int argc, char** argv, int rank, int ranks) {
  size_t n = size_t{1} << 28;
  const char* path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) {
      n = std::strtoull(argv[++i], nullptr, 10);
    } else {
      path = argv[i];
    }
  }
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
    std::fprintf(stderr, "mpi_histogram[%d]: no CUDA device found; each rank needs an NVIDIA GPU\n", rank);
    return 1;
  }
  MPI_Comm node;  // the ranks of this node, to pick a GPU each
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  if (!ok(cudaSetDevice(local % gpus), "cudaSetDevice")) { return 1; }

  std::vector<unsigned char> host;
  if (path != nullptr) {
    if (!read_part(path, rank, ranks, host)) {
      std::fprintf(stderr, "mpi_histogram[%d]: cannot read %s\n", rank, path);
      return 1;
    }
    n = host.size();
  }
  // example-begin mpi
  ncclUniqueId id;
  if (rank == 0 && !ok(ncclGetUniqueId(&id), "ncclGetUniqueId")) { MPI_Abort(MPI_COMM_WORLD, 1); }
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);  // every rank joins the same communicator
  ncclComm_t comm;
  if (!ok(ncclCommInitRank(&comm, ranks, id, rank), "ncclCommInitRank")) { return 1; }
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  unsigned char* shard = nullptr;
  unsigned long long* hist = nullptr;  // 64-bit counters: a bin's total may pass 2^32 over all ranks
  cudaMalloc(&shard, n > 0 ? n : 1);
  cudaMalloc(&hist, 256 * sizeof(unsigned long long));
  if (path != nullptr) {
    cudaMemcpyAsync(shard, host.data(), n, cudaMemcpyHostToDevice, stream);
  } else {
    make_shard<<<1024, 256, 0, stream>>>(shard, n, rank);
  }
  cudaEvent_t start, counted, reduced;
  cudaEventCreate(&start);
  cudaEventCreate(&counted);
  cudaEventCreate(&reduced);
  cudaEventRecord(start, stream);
  if (!ok(onchip::histogram_even(shard, n, hist, 256, 0, 256, stream), "onchip::histogram_even")) { return 1; }
  cudaEventRecord(counted, stream);
  if (!ok(ncclAllReduce(hist, hist, 256, ncclUint64, ncclSum, comm, stream), "ncclAllReduce")) { return 1; }
  cudaEventRecord(reduced, stream);
  // example-end mpi
  if (!ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize")) { return 1; }
  std::vector<unsigned long long> total(256);
  cudaMemcpy(total.data(), hist, sizeof(unsigned long long) * 256, cudaMemcpyDeviceToHost);
  float histogram_ms = 0, reduce_ms = 0;
  cudaEventElapsedTime(&histogram_ms, start, counted);
  cudaEventElapsedTime(&reduce_ms, counted, reduced);

  // The check: the host's count of this rank's shard, summed over ranks by MPI.
  host.resize(n);
  cudaMemcpy(host.data(), shard, n, cudaMemcpyDeviceToHost);
  std::vector<unsigned long long> mine(256), expected(256);
  for (unsigned char b : host) { ++mine[b]; }
  MPI_Allreduce(mine.data(), expected.data(), 256, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  const int same = total == expected ? 1 : 0;
  int all_same = 0;
  MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  unsigned long long samples = 0;
  for (auto c : total) { samples += c; }
  std::printf("rank %d of %d (GPU %d): %zu bytes, histogram %.3f ms (%.1f GB/s), all-reduce of 2 KiB %.3f ms\n",
              rank, ranks, local % gpus, n, histogram_ms, histogram_ms > 0 ? n / (histogram_ms * 1e6) : 0.0,
              reduce_ms);
  if (rank == 0) {
    std::printf("%llu samples in the all-reduced histogram; %s\n", samples,
                all_same ? "every rank's histogram matches the host" : "MISMATCH");
  }
  ncclCommDestroy(comm);
  cudaFree(shard);
  cudaFree(hist);
  cudaStreamDestroy(stream);
  return all_same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int rc = run(argc, argv, rank_, ranks);
  MPI_Finalize();
  return rc;
}
