// The partition path: bins beyond shared memory counted without an atomic per sample in global memory. Each chunk
// of the input takes three passes through a workspace:
//   1. the buckets' sizes: the shared kernel over `buckets` bins, each sample's bin shifted right by slice_bits;
//   2. the scatter: each block bins a tile of samples, ranks them by bucket in shared memory, reserves each
//      bucket's room in the workspace with one atomic per bucket and tile, and writes every sample's key (the low
//      slice_bits bits of its bin, 16-bit) there, a bucket's keys contiguous;
//   3. the bucket pass: a block counts one bucket's keys (or a part of a large bucket's) in shared memory and adds
//      the counters into the output: without atomics where one block counts the whole bucket.
// About 8 bytes of traffic per 4-byte sample beyond the input's own, and no global atomic per sample.
#pragma once

#include <onchip/detail/histogram/counters.cuh>
#include <onchip/detail/histogram/job.cuh>
#include <onchip/detail/histogram/plan.cuh>
#include <onchip/detail/histogram/tuning.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace onchip::detail {

/// A bin's bucket (bin >> shift), or -1 for samples in no bin: the binner of the partition path's first pass.
template <class Binner>
struct bucket_binner {
  Binner binner;
  int bins;
  int shift;
  template <class X>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(X x) const {
    const int bin = binner(x);
    return static_cast<unsigned>(bin) < static_cast<unsigned>(bins) ? bin >> shift : -1;
  }
};

/// Jobs the partition path can count: one channel of 1-D input, unweighted, even or custom binning, not bytes.
template <class Job>
inline constexpr bool partition_job_v = Job::channels == 1 && Job::active == 1 && !Job::weighted &&
                                        !Job::segmented && Job::binners_t::level_bytes == 0 &&
                                        Job::binners_t::table_bytes == 0 && !byte_job_v<Job>;

/// The job of the first pass: the bucket of every sample, counted into the workspace's bucket sizes.
template <class Job>
using bucket_job_t = histogram_job<1, 1, typename Job::sample_t, no_weights,
                                   plain_binners<1, bucket_binner<typename Job::binners_t::binner_t>>, unsigned>;

/// What the scatter and the bucket pass get besides the job (the job's samples: this chunk's).
struct partition_args {
  cuda::std::uint16_t* keys;  // the chunk's keys, by bucket
  unsigned* sizes;            // keys per bucket (the first pass's output)
  unsigned* fill;             // keys placed per bucket so far (zeroed before the scatter)
  int buckets;
  int slice_bits;
  cuda::std::size_t item_keys;
};

#if defined(__CUDACC__)
/**
 * Exclusive prefix sums of in[0, n) into out[0, n], and their total into out[n], by the whole block (in may be
 * out, or global memory; warp_sums: 32 shared words). Synchronizes the block before and after.
 */
ONCHIP_DEVICE inline void block_exclusive_scan(const unsigned* in, unsigned* out, int n, unsigned* warp_sums) {
  const int t = block_rank(), threads = block_size(), lane = t % 32, warp = t / 32;
  __syncthreads();  // the caller's writes of `in` are visible, and nobody reads warp_sums or out any more
  const int per = (n + threads - 1) / threads;
  const int lo = t * per < n ? t * per : n, hi = lo + per < n ? lo + per : n;
  unsigned sum = 0;
  for (int i = lo; i < hi; ++i) { sum += in[i]; }
  unsigned inclusive = sum;
  for (int o = 1; o < 32; o *= 2) {
    const unsigned v = __shfl_up_sync(0xffffffffu, inclusive, o);
    if (lane >= o) { inclusive += v; }
  }
  if (lane == 31) { warp_sums[warp] = inclusive; }
  __syncthreads();
  if (warp == 0) {
    unsigned w = lane < threads / 32 ? warp_sums[lane] : 0u;
    for (int o = 1; o < 32; o *= 2) {
      const unsigned v = __shfl_up_sync(0xffffffffu, w, o);
      if (lane >= o) { w += v; }
    }
    warp_sums[lane] = w;  // inclusive over warps
  }
  __syncthreads();
  unsigned run = (warp > 0 ? warp_sums[warp - 1] : 0u) + inclusive - sum;
  for (int i = lo; i < hi; ++i) {
    const unsigned v = in[i];
    out[i] = run;
    run += v;
  }
  if (t == 0) { out[n] = warp_sums[threads / 32 - 1]; }
  __syncthreads();
}

/**
 * The scatter: tiles of Threads x Items samples, each thread's samples Threads apart (coalesced loads; the next
 * tile's are loaded while this one is ranked and written). A tile's bins are ranked by bucket with shared
 * atomics, staged in bucket order, and written as keys to each bucket's room in the workspace, reserved with one
 * global atomic per bucket present in the tile.
 */
template <int Threads, int Items, class Job>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void partition_scatter(const Job& job, const partition_args& p) {
  static_assert(Threads * Items <= 65536, "a tile's ranks must fit 16 bits");
  using sample_t = typename Job::sample_t;
  constexpr unsigned none = 0xffffffffu;
  const auto s = onchip::carve(partition_scatter_layout{p.buckets, Threads * Items});
  const int t = block_rank();
  const cuda::std::size_t n = job.row_samples;
  constexpr cuda::std::size_t tile = static_cast<cuda::std::size_t>(Threads) * Items;
  const cuda::std::size_t tiles = (n + tile - 1) / tile;
  const unsigned bins = static_cast<unsigned>(job.total_bins());
  const unsigned mask = (1u << p.slice_bits) - 1u;
  const auto binner = job.binners[0];
  for (int j = t; j < p.buckets; j += Threads) { s.count[j] = 0; }
  block_exclusive_scan(p.sizes, s.base, p.buckets, s.warp_sums);  // each bucket's first key in the chunk
  sample_t v[Items];
  auto load_tile = [&](cuda::std::size_t x) {  // tile x's samples, if it has any
    const cuda::std::size_t first = x * tile;
    const int valid = first < n ? static_cast<int>(n - first < tile ? n - first : tile) : 0;
    const sample_t* in = job.samples + first;
#  pragma unroll
    for (int k = 0; k < Items; ++k) {
      if (k * Threads + t < valid) { v[k] = onchip::load<cache::stream>(in + k * Threads + t); }
    }
  };
  load_tile(blockIdx.x);
  for (cuda::std::size_t x = blockIdx.x; x < tiles; x += gridDim.x) {
    const int valid = static_cast<int>(n - x * tile < tile ? n - x * tile : tile);
    unsigned bin[Items], rank[(Items + 1) / 2];  // ranks below 2^16 (a tile is smaller), two to a register
#  pragma unroll
    for (int k = 0; k < Items; ++k) {
      const unsigned b = k * Threads + t < valid ? static_cast<unsigned>(binner(v[k])) : none;
      bin[k] = b < bins ? b : none;
    }
    load_tile(x + gridDim.x);
#  pragma unroll
    for (int k = 0; k < Items; ++k) {
      // One returning atomic per sample (aggregating a warp's lanes of one bucket with __match_any_sync first cost
      // 40% on uniform keys and gained 3-19% on skewed ones: bench/NOTES.md).
      const unsigned r = bin[k] != none ? atomicAdd_block(s.count + (bin[k] >> p.slice_bits), 1u) : 0u;
      rank[k / 2] = k % 2 == 0 ? r : rank[k / 2] | r << 16;
    }
    block_exclusive_scan(s.count, s.offset, p.buckets, s.warp_sums);
    // Each present bucket's room in the chunk: the atomics are issued here and their results first used after
    // the tile is staged, so their latency hides behind the staging.
    constexpr int owned = (tuning::partition_max_buckets + Threads - 1) / Threads;
    unsigned reserved[owned];
#  pragma unroll
    for (int r = 0; r < owned; ++r) {
      const int j = t + r * Threads;
      const unsigned c = j < p.buckets ? s.count[j] : 0u;
      reserved[r] = c != 0 ? atomicAdd(p.fill + j, c) : 0u;
      if (j < p.buckets) { s.count[j] = 0; }  // for the next tile (every rank of this one is taken)
    }
#  pragma unroll
    for (int k = 0; k < Items; ++k) {
      const unsigned r = (rank[k / 2] >> (k % 2 * 16)) & 0xffffu;
      if (bin[k] != none) { s.staged[s.offset[bin[k] >> p.slice_bits] + r] = bin[k]; }
    }
#  pragma unroll
    for (int r = 0; r < owned; ++r) {
      const int j = t + r * Threads;
      if (j < p.buckets) { s.place[j] = s.base[j] + reserved[r] - s.offset[j]; }
    }
    __syncthreads();
    const unsigned staged = s.offset[p.buckets];
    for (unsigned i = t; i < staged; i += Threads) {
      const unsigned b = s.staged[i];
      p.keys[s.place[b >> p.slice_bits] + i] = static_cast<cuda::std::uint16_t>(b & mask);
    }
    __syncthreads();
  }
}

/**
 * The bucket pass: items are buckets, a bucket of more than item_keys keys split into near-equal parts; a block
 * zeroes one bucket's counters, counts its item's keys with one shared atomic each, and adds the non-zero counters
 * into the output (plainly where the item is the whole bucket: no other block adds to those bins in this launch).
 */
template <int Threads, int Vectors, class Job>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void partition_bins(const Job& job, const partition_args& p) {
  using counter_t = typename Job::counter_t;
  const auto s = onchip::carve(partition_bins_layout{p.slice_bits, p.buckets});
  const int t = block_rank();
  const int slice = 1 << p.slice_bits;
  const unsigned mask = static_cast<unsigned>(slice - 1);
  const cuda::std::size_t bins = static_cast<cuda::std::size_t>(job.total_bins());
  block_exclusive_scan(p.sizes, s.base, p.buckets, s.warp_sums);
  for (int j = t; j < p.buckets; j += Threads) {
    const cuda::std::size_t keys = p.sizes[j];
    s.items[j] = keys > p.item_keys ? static_cast<unsigned>((keys + p.item_keys - 1) / p.item_keys) : 1u;
  }
  block_exclusive_scan(s.items, s.items, p.buckets, s.warp_sums);
  const unsigned items = s.items[p.buckets];
  const auto counters = static_cast<unsigned>(__cvta_generic_to_shared(s.counters));
  auto count = [&](unsigned key) {  // word key + key / 32: keys a multiple of 32 apart fall on different banks
    key &= mask;
    asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(counters + (key + (key >> 5)) * 4u) : "memory");
  };
  for (unsigned item = blockIdx.x; item < items; item += gridDim.x) {
    int lo = 0, hi = p.buckets;  // the bucket: the last j with items[j] <= item (every bucket has an item)
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      if (s.items[mid] <= item) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    const int j = lo;
    const unsigned parts = s.items[j + 1] - s.items[j], part = item - s.items[j];
    const unsigned long long size = s.base[j + 1] - s.base[j];
    const cuda::std::size_t begin = s.base[j] + size * part / parts, end = s.base[j] + size * (part + 1) / parts;
    for (int i = t; i < padded_words(slice) / 4; i += Threads) {
      reinterpret_cast<uint4*>(s.counters)[i] = make_uint4(0, 0, 0, 0);
    }
    __syncthreads();
    onchip::block_for_each_vec<Vectors>(
        p.keys + begin, end - begin,
        [&](const vec<cuda::std::uint16_t, 8>& keys, cuda::std::size_t) {
#  pragma unroll
          for (int k = 0; k < 8; ++k) { count(keys[k]); }
        },
        [&](cuda::std::uint16_t key, cuda::std::size_t) { count(key); });
    __syncthreads();
    const cuda::std::size_t first = static_cast<cuda::std::size_t>(j) << p.slice_bits;
    const int limit = bins - first < static_cast<cuda::std::size_t>(slice) ? static_cast<int>(bins - first) : slice;
    for (int i = t; i < limit; i += Threads) {
      const unsigned c = s.counters[i + (i >> 5)];
      if (c == 0) { continue; }
      counter_t* out = job.hist[0] + first + i;
      if (parts == 1) {
        *out += static_cast<counter_t>(c);
      } else {
        atomic_add<false>(out, static_cast<counter_t>(c));
      }
    }
    __syncthreads();
  }
}
template <class Job, int Threads, int MinBlocks, int Items>
__global__ void __launch_bounds__(Threads, tuning::device_min_blocks(Threads, MinBlocks))
    partition_scatter_kernel(Job job, partition_args p) {
  partition_scatter<Threads, Items>(job, p);
}

template <class Job, int Threads, int Vectors>
__global__ void __launch_bounds__(Threads, 1) partition_bins_kernel(Job job, partition_args p) {
  partition_bins<Threads, Vectors>(job, p);
}
#endif  // __CUDACC__

}  // namespace onchip::detail
