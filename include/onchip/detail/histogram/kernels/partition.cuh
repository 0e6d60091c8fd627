// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The partition path: bins beyond shared memory counted without an atomic per sample in global memory. Each chunk
// of the input takes two passes through a workspace:
//   1. the scatter: each block bins a tile of samples, ranks them by bucket (bin >> slice_bits) in shared memory,
//      and writes the tile's keys (the low slice_bits bits of each bin, 16-bit) sorted by bucket to the tile's own
//      place in the workspace (one coalesced 16-byte store per thread), with each bucket's first key in the tile
//      in a table (bucket-major, so the bucket pass reads a bucket's row coalesced); each block adds its keys per
//      bucket into the buckets' sizes once, at its end. A block's first skewed tile (a bucket holding over an
//      eighth of it) makes that bucket the block's direct bucket: its samples, from that tile on, are counted at
//      once in shared counters of that bucket (added into the output at the block's end) instead of being
//      partitioned;
//   2. the bucket pass: a block counts one bucket's keys (or those of a range of tiles, for a large bucket) in
//      shared memory, gathering each tile's run of the bucket's keys, and adds the counters into the output:
//      without atomics where one block counts the whole bucket.
// Where uniform keys leave every bucket whole (one block counts it), the output is not cleared before a call's
// first chunk (unless it accumulates): there each bucket's bins are stored once, by the first flush of its
// counters (or cleared by the first part of a split bucket to start), and later flushes add.
// About 4 bytes of traffic per sample beyond the input's own (keys written and read, the table's share), no
// global atomic per sample and no global ordering between tiles.
#pragma once

#include <onchip/detail/block.cuh>
#include <onchip/detail/histogram/call.cuh>
#include <onchip/detail/histogram/counters.cuh>
#include <onchip/detail/histogram/job.cuh>
#include <onchip/detail/histogram/partition_layout.cuh>
#include <onchip/detail/histogram/traverse.cuh>
#include <onchip/detail/histogram/tuning.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

namespace onchip::detail {

/// Whether a binner's result is -1 or below its bins() by construction (bin_even), so the scatter need not check
/// it; a custom binner's is checked.
template <class Binner>
inline constexpr bool bounded_binner_v = false;
template <class Level>
inline constexpr bool bounded_binner_v<bin_even<Level>> = true;
template <class Level>
inline constexpr bool bounded_binner_v<narrow_even<Level>> = true;

/// What the scatter and the bucket pass get besides the job (the job's samples: this chunk's).
struct partition_args {
  cuda::std::uint16_t* keys;  // tile x's keys at [x * tile, (x + 1) * tile), sorted by bucket
  cuda::std::uint16_t*
      starts;        // bucket j's first key in tile x at [j * tiles + x]; row `buckets`: the tile's keys
  unsigned* sizes;   // keys per bucket in the chunk (zeroed before the scatter), direct_mark where a
                     // scatter block counted some of the bucket's samples in place
  unsigned* claims;  // per bucket (zeroed with the sizes): take_claim's word, where `overwrite`
  unsigned long long* ignored;  // options.ignored: samples in no bin, counted by the scatter
  int buckets;
  int slice_bits;
  unsigned tiles;  // the chunk's tiles
  cuda::std::size_t item_keys;
  bool direct;     // whether the scatter's blocks have a direct bucket's counters
  bool fresh;      // the call's first chunk, not accumulating: no flush before this chunk's went into the output
  bool overwrite;  // fresh, and the output was not cleared before (launch_plan::zero_in_kernel): the passes store
                   // every bin of it
};

/// The mark in a bucket's size (its top bit) that some scatter block flushed counts of it into the output: the
/// bucket pass then adds to what the output holds even in a fresh chunk.
inline constexpr unsigned direct_mark = 0x80000000u;

/// The bins of bucket j of `bins` bins in buckets 2^slice_bits wide (the last one may hold fewer).
ONCHIP_HOST_DEVICE constexpr int bucket_bins(cuda::std::size_t bins, unsigned j, int slice_bits) {
  const cuda::std::size_t first = static_cast<cuda::std::size_t>(j) << slice_bits;
  const cuda::std::size_t slice = cuda::std::size_t{1} << slice_bits;
  return static_cast<int>(bins - first < slice ? bins - first : slice);
}

#if defined(__CUDACC__)
/// The first of `total` things that part `i` of `parts` near-equal parts takes (i = parts: total).
ONCHIP_HOST_DEVICE constexpr unsigned share_begin(unsigned total, unsigned i, unsigned parts) {
  return static_cast<unsigned>(static_cast<unsigned long long>(total) * i / parts);
}

/// A scan's visitor that does nothing.
struct no_visit {
  ONCHIP_DEVICE void operator()(int, unsigned) const {}
};

/**
 * Exclusive prefix sums of in[0, n) into out[0, n], and their total into out[n], by a block of Threads threads (in
 * may be out, or global memory; warp_sums: 32 shared words); visit(i, in[i]) is called once for each value, before
 * the last barrier. Synchronizes the block before and after. Each thread takes `per` consecutive values; warps
 * with none skip the work, and where one warp holds them all there is no scan over warps (and no third barrier).
 */
template <int Threads, class Visit = no_visit>
ONCHIP_DEVICE inline void block_exclusive_scan(const unsigned* in, unsigned* out, int n, unsigned* warp_sums,
                                               Visit visit = {}) {
  static_assert(Threads % 32 == 0 && Threads <= 1024, "the scan runs on whole warps, at most 32 of them");
  constexpr unsigned all = 0xffffffffu;
  const int t = static_cast<int>(threadIdx.x), lane = t % 32, warp = t / 32;
  // n taken anew at each call: kept in the scatter's loop from one tile to the next, the bounds derived from it
  // spilled in 64 registers (its 1024 x 16 shape).
  asm volatile("" : "+r"(n));
  __syncthreads();  // the caller's writes of `in` are visible, and nobody reads warp_sums or out any more
  // Values per thread and per warp: up to 128 values in one warp (4 a lane: no scan over warps, which costs more
  // at 128 buckets than 4 values a lane; 16 a lane cost more than it at 512), else spread over the block.
  const int per = n <= 128 ? (n + 31) / 32 : (n + Threads - 1) / Threads, span = 32 * per;
  const bool active = warp * span < n;
  const int lo = t * per < n ? t * per : n, hi = lo + per < n ? lo + per : n;
  unsigned sum = 0, inclusive = 0, before = 0, total = 0;
  if (active) {
    for (int i = lo; i < hi; ++i) {
      const unsigned v = in[i];
      visit(i, v);
      sum += v;
    }
    inclusive = warp_inclusive_sum(sum, lane);
    total = __shfl_sync(all, inclusive, 31);
  }
  if (n > span) {  // several warps: each active one scans the warp sums itself
    if (active && lane == 31) { warp_sums[warp] = inclusive; }
    __syncthreads();
    if (active) {
      const unsigned warps = warp_inclusive_sum(lane * span < n ? warp_sums[lane] : 0u, lane);
      before = __shfl_sync(all, warps, warp > 0 ? warp - 1 : 0);
      before = warp > 0 ? before : 0u;
      total = __shfl_sync(all, warps, 31);
    }
  }
  if (active) {
    unsigned run = before + inclusive - sum;
    for (int i = lo; i < hi; ++i) {
      const unsigned v = in[i];
      out[i] = run;
      run += v;
    }
  }
  if (t == 0) { out[n] = total; }
  __syncthreads();
}

/// A tile's samples, loaded into `v` (tile x of the chunk's n samples; nothing past its end): a whole tile without
/// index checks.
template <int Threads, int Items, class Sample>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void load_scatter_tile(const Sample* samples, cuda::std::size_t n,
                                                        cuda::std::size_t x, int t, Sample (&v)[Items]) {
  constexpr int tile = Threads * Items;
  const cuda::std::size_t first = x * tile;
  const Sample* in = samples + first + t;
  if (first + tile <= n) {
#  pragma unroll
    for (int k = 0; k < Items; ++k) { v[k] = onchip::load<cache::stream>(in + k * Threads); }
    return;
  }
  const int valid = first < n ? static_cast<int>(n - first) : 0;
#  pragma unroll
  for (int k = 0; k < Items; ++k) {
    if (k * Threads + t < valid) { v[k] = onchip::load<cache::stream>(in + k * Threads); }
  }
}

/// The bins of a tile's samples, `none` for a sample in no bin or past the tile's `valid` ones (Whole: all are
/// valid, so no index is checked). bin_even's bins are bounded by construction; a custom binner's are checked.
/// `shifts`: the binner is narrow_even with bins a power of two wide within the samples' type (shifted()).
template <bool Whole, int Threads, int Items, class Binner, class Sample>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void bin_scatter_tile(const Binner& binner, unsigned bins, int valid, int t,
                                                       bool shifts, const Sample (&v)[Items],
                                                       unsigned (&bin)[Items]) {
  constexpr unsigned none = 0xffffffffu;
  if constexpr (is_narrow_even_v<Binner>) {
    if (shifts) {  // uniform: one branch a tile
#  pragma unroll
      for (int k = 0; k < Items; ++k) {
        const bool sample = Whole || k * Threads + t < valid;
        bin[k] = sample ? static_cast<unsigned>(binner.shifted(v[k])) : none;
      }
      return;
    }
  }
#  pragma unroll
  for (int k = 0; k < Items; ++k) {
    const bool sample = Whole || k * Threads + t < valid;
    const unsigned b = sample ? static_cast<unsigned>(binner(v[k])) : none;
    bin[k] = bounded_binner_v<Binner> || b < bins ? b : none;
  }
}

/// How the scatter ranks a tile's samples (rank_scatter_tile): each with its own atomic; with the block's direct
/// bucket's samples counted in place; or with those counted and the lanes of a warp in the last tile's hot bucket
/// sharing one atomic.
enum class scatter_rank { plain, direct, aggregate };

/// A bin that the block counted in its direct bucket's counters: neither ranked nor staged.
inline constexpr unsigned direct_counted = 0xfffffffeu;

/**
 * Each sample's rank in its bucket, by one returning atomic on the bucket's count; samples in no bin count in one
 * of 32 spare counters past the buckets' (by lane), so no branch skips the atomic. Direct (and Aggregate): a
 * sample of bucket `direct` is counted at once in the block's counters of that bucket (`direct_at`:
 * direct_counters) and its bin becomes direct_counted. Aggregate (after a skewed tile: its bucket `hot`, not
 * `direct`, held over an eighth of it): the lanes of a warp in bucket `hot` take their ranks with one atomic, the
 * lowest such lane's, since keys piling into one bucket otherwise serialize on its counter (aggregating every
 * bucket with __match_any_sync cost 40% on uniform keys, and lane 0's bucket instead of `hot` left the warps whose
 * lane 0 is elsewhere serialized: bench/notes/). Ranks are below 2^16, two to a register.
 */
template <scatter_rank Mode, int Items>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void rank_scatter_tile(unsigned* count, const partition_args& p, int lane,
                                                        unsigned hot, unsigned direct, unsigned direct_at,
                                                        unsigned (&bin)[Items], unsigned (&rank)[Items / 2]) {
  constexpr unsigned none = 0xffffffffu, all = 0xffffffffu;
#  pragma unroll
  for (int k = 0; k < Items; ++k) {
    const unsigned bucket = bin[k] != none ? bin[k] >> p.slice_bits : p.buckets + lane;
    const bool counted = Mode != scatter_rank::plain && bucket == direct;
    if (counted) { shared_red(direct_at + counter_word(bin[k]) * 4u, 1u); }
    unsigned r = 0;
    if constexpr (Mode == scatter_rank::aggregate) {
      const unsigned peers = __ballot_sync(all, bucket == hot);
      const int leader = peers != 0 ? __ffs(static_cast<int>(peers)) - 1 : 0;
      unsigned got = 0;
      if (!counted && (bucket != hot || lane == leader)) {
        got = atomicAdd_block(count + bucket, bucket == hot ? __popc(peers) : 1u);
      }
      const unsigned base = __shfl_sync(all, got, leader);
      r = bucket == hot ? base + __popc(peers & ((1u << lane) - 1u)) : got;
    } else if (!counted) {
      r = atomicAdd_block(count + bucket, 1u);
    }
    if (counted) { bin[k] = direct_counted; }
    // The spare counters count the block's samples in no bin: a rank taken from one may pass 2^16, so only its
    // low half packs.
    rank[k / 2] = k % 2 == 0 ? r & 0xffffu : rank[k / 2] | r << 16;
  }
}

/// A skewed tile's mark in the scatter's shared word: tile x + 1 above its hot bucket's 12 bits (a later tile's
/// mark is larger; the chunk's tiles are fewer than 2^19, so the mark fits 31 bits).
inline constexpr unsigned skewed_bucket_bits = 12, skewed_bucket_mask = (1u << skewed_bucket_bits) - 1u;
static_assert(tuning::partition_max_buckets <= (1 << skewed_bucket_bits), "a skewed tile's mark holds its bucket");
ONCHIP_HOST_DEVICE constexpr unsigned skewed_mark(unsigned x, unsigned bucket) {
  return (x + 1) << skewed_bucket_bits | bucket;
}

/// After tile x's scan: each bucket's first key in the tile goes to the table, the counts join the block's totals
/// and are zeroed for the next tile (every rank of this one is taken). Bucket `drop` (none: 0xffffffff) goes to
/// the block's direct counters from this tile on: its `dropped` keys leave the tile's run of keys.
template <int Threads>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void publish_scatter_tile(const partition_scatter_layout::spans& s,
                                                           const partition_args& p, unsigned x, int t,
                                                           unsigned drop, unsigned dropped) {
  for (int j = t; j <= p.buckets; j += Threads) {
    const unsigned start = s.offset[j] - (static_cast<unsigned>(j) > drop ? dropped : 0u);
    p.starts[static_cast<cuda::std::size_t>(j) * p.tiles + x] = static_cast<cuda::std::uint16_t>(start);
    if (j < p.buckets) {
      s.total[j] += static_cast<unsigned>(j) != drop ? s.count[j] : 0u;
      s.count[j] = 0;
    }
  }
}

/// Stages a tile's keys (the low bits of each bin) in bucket order (Drop: less the `dropped` keys of bucket
/// `drop`, which are counted in the direct counters instead, `direct_at` being direct_counters); samples in no
/// bin or counted directly write the thread's spare slot past the tile (`spare`): a select, no branch, and no two
/// threads store to one slot.
template <bool Drop, int Items>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void stage_scatter_tile(const partition_scatter_layout::spans& s,
                                                         const partition_args& p, int spare, unsigned drop,
                                                         unsigned dropped, unsigned direct_at,
                                                         const unsigned (&bin)[Items],
                                                         const unsigned (&rank)[Items / 2]) {
  const unsigned mask = (1u << p.slice_bits) - 1u;
#  pragma unroll
  for (int k = 0; k < Items; ++k) {
    const unsigned r = (rank[k / 2] >> (k % 2 * 16)) & 0xffffu;
    const unsigned bucket = bin[k] < direct_counted ? bin[k] >> p.slice_bits : p.buckets;
    const unsigned key = bin[k] & mask;
    if (Drop && bucket == drop) { shared_red(direct_at + counter_word(bin[k]) * 4u, 1u); }
    const bool placed = bin[k] < direct_counted && (!Drop || bucket != drop);
    const unsigned at = s.offset[bucket] - (Drop && bucket > drop ? dropped : 0u) + r;
    s.staged[placed ? at : spare] = static_cast<cuda::std::uint16_t>(key);
  }
}

/// A bucket's claim (its word in partition_args::claims, where a chunk overwrites the output): 0 free, 1 taken,
/// 2 released (the taker's stores into the bucket's bins are done). take_claim and await_claim run on one thread.
ONCHIP_DEVICE inline bool take_claim(unsigned* claim) { return atomicCAS(claim, 0u, 1u) == 0u; }

/// Waits until the claim is released: its taker is resident (it took it) and releases it without waiting. An
/// acquire load: the taker's stores are seen after it (the caller's barrier passes that on to the block). No
/// full fence: __threadfence() made ptxas turn the kernel's global reductions into returning atomics.
ONCHIP_DEVICE inline void await_claim(unsigned* claim) {
  for (;;) {
    unsigned state;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(state) : "l"(claim) : "memory");
    if (state == 2u) { return; }
    __nanosleep(128);
  }
}

/// Releases a claim this block took, once every thread's stores are done (the barrier orders them before the
/// release store, which carries them to whoever acquires it). Block-wide.
ONCHIP_DEVICE inline void release_claim(unsigned* claim, int t) {
  __syncthreads();
  if (t == 0) { asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(claim), "r"(2u) : "memory"); }
}

/// The scatter's end: the block's keys per bucket into the sizes, the counters of its direct bucket (if it took
/// one) into the output (`bins` bins: stored by the first block to flush the bucket where the chunk overwrites the
/// output, else added), and its samples in no bin (the spare counters, less the `empty` slots of tiles past the
/// chunk's end) into the ignored count.
template <int Threads, class Counter>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void finish_scatter(const partition_scatter_layout::spans& s,
                                                     const partition_args& p, int t, unsigned empty,
                                                     unsigned direct, Counter* hist, unsigned bins) {
  for (int j = t; j < p.buckets; j += Threads) {
    if (s.total[j] != 0) { atomicAdd(p.sizes + j, s.total[j]); }
  }
  if (direct < static_cast<unsigned>(p.buckets)) {  // every red into them came before the last tile's barriers
    if (t == 0) { atomicOr(p.sizes + direct, direct_mark); }
    const int limit = bucket_bins(bins, direct, p.slice_bits);
    Counter* out = hist + (static_cast<cuda::std::size_t>(direct) << p.slice_bits);
    // Where the chunk overwrites the output, the first block to flush the bucket stores every bin of it, and the
    // others add once it has (the skew word is free: every thread read it before the last tile's staging barrier).
    bool store = false;
    if (p.overwrite) {
      if (t == 0) {
        const bool first = take_claim(p.claims + direct);
        if (!first) { await_claim(p.claims + direct); }
        *s.skewed = first ? 1u : 0u;
      }
      __syncthreads();
      store = *s.skewed != 0;
    }
#  pragma unroll 1
    for (int i = t; i < limit; i += Threads) {
      const unsigned c = s.direct[counter_word(static_cast<unsigned>(i))];
      if (store) {
        out[i] = static_cast<Counter>(c);
      } else if (c != 0) {
        atomic_add<false>(out + i, static_cast<Counter>(c));
      }
    }
    if (store) { release_claim(p.claims + direct, t); }
  }
  if (t < 32 && p.ignored != nullptr) {
    const unsigned long long spare = s.count[p.buckets + t];  // below 2^32: the chunk's samples are
    add_ignored(t == 0 ? spare - empty : spare, p.ignored);   // modulo 2^64: the warp's sum is exact
  }
}

/// Zeroes a scatter block's counts (and the 32 spare ones, for samples in no bin), its buckets' totals, its direct
/// bucket's counters and the skew mark; synchronizes the block.
template <int Threads>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void clear_scatter_block(const partition_scatter_layout::spans& s,
                                                          const partition_args& p, int t) {
  for (int j = t; j < p.buckets + 32; j += Threads) {
    s.count[j] = 0;
    if (j < p.buckets) { s.total[j] = 0; }
  }
  for (int i = t; p.direct && i < padded_words(1 << p.slice_bits) / 4; i += Threads) {
    reinterpret_cast<uint4*>(s.direct)[i] = make_uint4(0, 0, 0, 0);
  }
  if (t == 0) { *s.skewed = 0; }
  __syncthreads();
}

/// Ranks a tile's bins by bucket: aggregated for a skewed tile whose hot bucket is not the block's direct one,
/// else with or without the direct bucket counted in place.
template <int Items>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void rank_tile(unsigned* count, const partition_args& p, int lane, bool skewed,
                                                unsigned hot, unsigned direct, unsigned direct_at,
                                                unsigned (&bin)[Items], unsigned (&rank)[Items / 2]) {
  if (skewed && hot != direct) {
    rank_scatter_tile<scatter_rank::aggregate>(count, p, lane, hot, direct, direct_at, bin, rank);
  } else if (direct != 0xffffffffu) {
    rank_scatter_tile<scatter_rank::direct>(count, p, lane, hot, direct, direct_at, bin, rank);
  } else {
    rank_scatter_tile<scatter_rank::plain>(count, p, lane, hot, direct, direct_at, bin, rank);
  }
}

/// Scans tile x's counts into offsets. A bucket over an eighth of the tile marks it skewed as its hot bucket
/// (where several are, the highest-numbered: an atomic maximum of skewed_mark, so that no two threads store to the
/// word); returns the mark.
template <int Threads, int Tile>
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned scan_scatter_tile(const partition_scatter_layout::spans& s,
                                                            const partition_args& p, unsigned x) {
  block_exclusive_scan<Threads>(s.count, s.offset, p.buckets, s.warp_sums, [&](int j, unsigned c) {
    if (c > static_cast<unsigned>(Tile / 8)) {
      atomicMax_block(s.skewed, skewed_mark(x, static_cast<unsigned>(j)));
    }
  });
  return *s.skewed;
}

/// Writes a staged tile's keys (but the `dropped` counted in place) to its place in the workspace, the last
/// vector's tail unused.
template <int Threads>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void write_scatter_tile(const partition_scatter_layout::spans& s,
                                                         const partition_args& p, cuda::std::size_t first,
                                                         unsigned dropped, int t) {
  const unsigned vectors = (s.offset[p.buckets] - dropped + 7) / 8;
  auto* out = reinterpret_cast<uint4*>(p.keys + first);
#  pragma unroll 1
  for (unsigned i = t; i < vectors; i += Threads) { out[i] = reinterpret_cast<const uint4*>(s.staged)[i]; }
}

/**
 * The scatter: tiles of Threads x Items samples, each thread's samples Threads apart (coalesced loads; the next
 * tile's are loaded while this one is ranked and written). A tile's bins are ranked by bucket with shared
 * atomics, staged as keys in bucket order, and written to the tile's place in the workspace; each bucket's first
 * key in the tile goes to the table. No global atomic until the block's end (its keys per bucket, into sizes).
 */
template <int Threads, int Items, class Job>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void partition_scatter(const Job& job, const partition_args& p) {
  constexpr int tile = Threads * Items;
  static_assert(tile < 65536, "a tile's ranks and the table's offsets must fit 16 bits");
  static_assert(Items % 8 == 0, "a tile's keys are written as 16-byte vectors of 8 keys");
  const auto s = onchip::carve(partition_scatter_layout{p.buckets, tile, p.slice_bits, p.direct, Threads});
  const int t = block_rank(), lane = t % 32;
  const cuda::std::size_t n = job.row_samples;
  const unsigned bins = static_cast<unsigned>(job.total_bins());
  const auto binner = job.binners[0];
  bool shifts = false;  // narrow_even's power-of-two path (bin_scatter_tile)
  if constexpr (is_narrow_even_v<cuda::std::remove_cv_t<decltype(binner)>>) {
    shifts = binner.template shifts<typename Job::sample_t>();
  }
  clear_scatter_block<Threads>(s, p, t);
  const auto counters = p.direct ? static_cast<unsigned>(__cvta_generic_to_shared(s.direct)) : 0u;
  constexpr unsigned none = 0xffffffffu;
  bool skewed = false;     // whether the last tile was
  unsigned hot = 0;        // and its hot bucket
  unsigned direct = none;  // the block's direct bucket: the first skewed tile's hot bucket
  unsigned direct_at = 0;  // and direct_counters of it
  unsigned empty = 0;      // slots of the block's tiles past the chunk's end (ranked as samples in no bin)
  typename Job::sample_t v[Items];
  load_scatter_tile<Threads>(job.samples, n, blockIdx.x, t, v);
  for (unsigned x = blockIdx.x; x < p.tiles; x += gridDim.x) {
    const cuda::std::size_t first = static_cast<cuda::std::size_t>(x) * tile;
    const int valid = static_cast<int>(n - first < tile ? n - first : tile);
    unsigned bin[Items], rank[Items / 2];
    if (valid == tile) {
      bin_scatter_tile<true, Threads>(binner, bins, valid, t, shifts, v, bin);
    } else {
      bin_scatter_tile<false, Threads>(binner, bins, valid, t, shifts, v, bin);
      empty += tile - valid;
    }
    load_scatter_tile<Threads>(job.samples, n, x + gridDim.x, t, v);
    rank_tile<Items>(s.count, p, lane, skewed, hot, direct, direct_at, bin, rank);
    const unsigned mark = scan_scatter_tile<Threads, tile>(s, p, x);
    skewed = mark >> skewed_bucket_bits == x + 1;
    hot = mark & skewed_bucket_mask;
    // The block's first skewed tile: its hot bucket is counted in place from this tile on.
    const unsigned drop = p.direct && skewed && direct == none ? hot : none;
    direct = drop != none ? drop : direct;
    unsigned dropped = 0;
    if (drop != none) {
      direct_at = direct_counters(counters, drop, p.slice_bits);
      dropped = s.offset[drop + 1] - s.offset[drop];
      publish_scatter_tile<Threads>(s, p, x, t, drop, dropped);
      stage_scatter_tile<true>(s, p, tile + t, drop, dropped, direct_at, bin, rank);
    } else {
      publish_scatter_tile<Threads>(s, p, x, t, none, 0u);
      stage_scatter_tile<false>(s, p, tile + t, none, 0u, direct_at, bin, rank);
    }
    __syncthreads();
    write_scatter_tile<Threads>(s, p, first, dropped, t);
    // No barrier here: the next tile writes counts, offsets, the skew flag and staged keys only past the barrier
    // that opens its scan, which every thread reaches after writing this tile's keys out.
  }
  finish_scatter<Threads>(s, p, t, empty, direct, job.hist[0], bins);
}

/**
 * One warp's round of 32 tiles (of Tile keys each) in the bucket pass: lane l's run is tile x0 + l's keys of the
 * bucket, [lo, hi) of the chunk's keys (run_bounds: both table entries, 16 bits each), in the 16-byte vectors
 * [lo / 8, (hi + 7) / 8), vectors [incl - len, incl) of the warp's sequence of the round's runs.
 */
template <int Gather, unsigned Tile>
struct key_round {
  unsigned x0, run_bounds, incl, total, shift;
  unsigned run_end;  // the end of `run` in the sequence
  int run = 0;       // the lane whose run holds this lane's next vector
  bool long_runs;    // 16 vectors or more per run on average

  ONCHIP_DEVICE ONCHIP_FORCEINLINE key_round(unsigned first_tile, unsigned bounds, int lane)
      : x0(first_tile), run_bounds(bounds) {
    constexpr unsigned all = 0xffffffffu, tile = Tile;
    const unsigned lo = (x0 + lane) * tile + (run_bounds & 0xffffu), hi = (x0 + lane) * tile + (run_bounds >> 16);
    const unsigned len = hi > lo ? (hi + 7) / 8 - lo / 8 : 0u;
    incl = warp_inclusive_sum(len, lane);
    total = __shfl_sync(all, incl, 31);
    shift = lo / 8 - (incl - len);  // the sequence's vector g of this run: vectors[shift + g]
    run_end = __shfl_sync(all, incl, 0);
    long_runs = total >= 32 * 16;
  }

  /// The lane whose run holds vector g of the sequence (g < total), once some lane's vector left its run: long
  /// runs step forward (a lane passes at most a few run ends per 32 vectors), short ones take a binary search.
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void find_run(unsigned g) {
    constexpr unsigned all = 0xffffffffu;
    if (long_runs) {
      bool past = g < total && g >= run_end;
      do {
        run += past;
        run_end = __shfl_sync(all, incl, run);
        past = g < total && g >= run_end;
      } while (__any_sync(all, past));
    } else {
      run = 0;
#  pragma unroll
      for (int step = 16; step >= 1; step /= 2) {
        if (__shfl_sync(all, incl, run + step - 1) <= g) { run += step; }
      }
      run_end = __shfl_sync(all, incl, run);
    }
  }

  /// Vectors [g0, g0 + 32 * Gather) of the sequence: each lane's Gather vectors' loads issued, and the mask of
  /// their keys in the run, [lo - 8 * vector, hi - 8 * vector) clipped to [0, 8) (none past the sequence).
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void fetch(const uint4* vectors, unsigned g0, int lane,
                                              unsigned (&in_run)[Gather], uint4 (&keys)[Gather]) {
    constexpr unsigned all = 0xffffffffu, tile = Tile;
#  pragma unroll
    for (int u = 0; u < Gather; ++u) {
      const unsigned g = g0 + u * 32 + lane;
      if (__any_sync(all, g < total && g >= run_end)) { find_run(g); }
      const unsigned vector = __shfl_sync(all, shift, run) + g;  // every lane shuffles, then selects
      const unsigned of_run = __shfl_sync(all, run_bounds, run), first = (x0 + run) * tile - vector * 8;
      const int begin = static_cast<int>(first + (of_run & 0xffffu));
      const int end = static_cast<int>(first + (of_run >> 16));
      const unsigned head = begin > 0 ? 0xffu << begin : 0xffu, tail = end < 8 ? (1u << end) - 1u : 0xffu;
      in_run[u] = g < total ? head & tail : 0u;
      if (g < total) { keys[u] = __ldg(vectors + vector); }
    }
  }
};

/// Counts fetched vectors' keys in the run (counters: the padded counters' shared address); a key outside it
/// counts in a spare word of the lane's (spare: key 0's; key q's is 32 q words on): no branch around the atomic
/// (ptxas turns a predicated one into a branch), lanes' spare words share no bank, and a lane's atomics in a row
/// do not wait on one word.
template <int Gather>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void count_gathered_keys(unsigned counters, unsigned spare,
                                                          const unsigned (&in_run)[Gather],
                                                          const uint4 (&keys)[Gather]) {
#  pragma unroll
  for (int u = 0; u < Gather; ++u) {
    if (__all_sync(0xffffffffu, in_run[u] == 0)) { continue; }  // past the warp's sequence: no atomics
    const unsigned words[4] = {keys[u].x, keys[u].y, keys[u].z, keys[u].w};
#  pragma unroll
    for (int q = 0; q < 8; ++q) {
      const unsigned k = (words[q / 2] >> (q % 2 * 16)) & 0xffffu;
      shared_red(in_run[u] & (1u << q) ? padded_counter(counters, k) : spare + q * 128u, 1u);
    }
  }
}

/// Asks the L2 for the lines of lane l's run in tile x0 + l (bounds: both table entries; up to 4 lines of 128
/// bytes, 64 keys each), so that the round which counts them finds them there.
template <unsigned Tile>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void prefetch_runs(const cuda::std::uint16_t* keys, unsigned x0, unsigned bounds,
                                                    unsigned warp_end, int lane) {
  const unsigned x = x0 + lane;
  if (x >= warp_end) { return; }
  const unsigned lo = x * Tile + (bounds & 0xffffu), hi = x * Tile + (bounds >> 16);
  if (hi <= lo) { return; }
  const unsigned last = (hi - 1) / 64;
#  pragma unroll 1
  for (unsigned line = lo / 64, k = 0; line <= last && k < 4; ++line, ++k) {
    asm volatile("prefetch.global.L2 [%0];" ::"l"(keys + static_cast<cuda::std::size_t>(line) * 64));
  }
}

/// One warp's share of an item, tiles [warp_first, warp_end) of bucket `row / tiles`'s row of the table: 32 tiles
/// a round, the next round's bounds read while this one's keys are counted, and two batches of Gather vectors per
/// lane in flight (the next batch's loads issued before this one's keys are counted), also across rounds: a
/// round's last batch is counted after the next round's first one is fetched, so short runs (few batches a round)
/// keep loads in flight too. Where runs are short (under 16 vectors on average), the next round's runs are asked
/// of the L2 once this round's first batch is counted: short runs scattered over the chunk read from DRAM at a
/// rate that grows with the bytes in flight, more than registers hold (bench/notes/).
template <int Gather, unsigned Tile>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void count_warp_tiles(const partition_args& p, unsigned row, unsigned warp_first,
                                                       unsigned warp_end, int lane, unsigned counters,
                                                       unsigned spare) {
  if (warp_first >= warp_end) { return; }
  const auto* vectors = reinterpret_cast<const uint4*>(p.keys);
  auto bounds = [&](unsigned x0) {  // lane l's run's bounds in tile x0 + l (both table entries in one word)
    const unsigned x = x0 + lane;
    return x < warp_end ? p.starts[row + x] | static_cast<unsigned>(p.starts[row + p.tiles + x]) << 16 : 0u;
  };
  unsigned x0 = warp_first, g0 = 0;
  key_round<Gather, Tile> round(x0, bounds(x0), lane);
  unsigned next = bounds(x0 + 32);  // read while this round's keys are counted
  unsigned in_run[Gather];
  uint4 keys[Gather];
  round.fetch(vectors, 0, lane, in_run, keys);
  for (;;) {  // warp-uniform: every lane shuffles
    unsigned next_in_run[Gather] = {};
    uint4 next_keys[Gather];
    const bool same_round = g0 + 32 * Gather < round.total, more = same_round || x0 + 32 < warp_end;
    if (same_round) {
      g0 += 32 * Gather;
    } else if (more) {
      x0 += 32;
      g0 = 0;
      round = key_round<Gather, Tile>(x0, next, lane);
      next = bounds(x0 + 32);
    }
    if (more) { round.fetch(vectors, g0, lane, next_in_run, next_keys); }
    count_gathered_keys<Gather>(counters, spare, in_run, keys);
    if (!more) { return; }
    if (g0 == 32 * Gather && !round.long_runs) {  // the round's first batch is counted (g0: its second)
      prefetch_runs<Tile>(p.keys, x0 + 32, next, warp_end, lane);
    }
#  pragma unroll
    for (int u = 0; u < Gather; ++u) {
      in_run[u] = next_in_run[u];
      keys[u] = next_keys[u];
    }
  }
}

/// How the bucket pass puts a whole bucket's counters into the output in a fresh chunk, no scatter block having
/// flushed into it: every bin stored (the output not cleared), or the non-zero ones (over the memset's zeros);
/// elsewhere added plainly (no other block adds to those bins in this launch), or by atomics (a split bucket).
enum class bucket_flush { store_all, store_counted, add, atomic };

/// Puts a bucket's counters (padded, `limit` bins from out) into the output, Flush per thread at a time so their
/// reads of the output are in flight together (4 for 8-byte counters: 8 of those spilled registers).
template <int Threads, class Counter>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void flush_bucket(const unsigned* counters, Counter* out, int limit,
                                                   bucket_flush how, int t) {
  constexpr int Flush = sizeof(Counter) > 4 ? 4 : 8;
  for (int i0 = t; i0 < limit; i0 += Threads * Flush) {
    unsigned c[Flush];
#  pragma unroll
    for (int f = 0; f < Flush; ++f) {
      const int i = i0 + f * Threads;
      c[f] = i < limit ? counters[counter_word(static_cast<unsigned>(i))] : 0u;
    }
    if (how == bucket_flush::store_all || how == bucket_flush::store_counted) {
      const bool all = how == bucket_flush::store_all;
#  pragma unroll
      for (int f = 0; f < Flush; ++f) {
        if (all ? i0 + f * Threads < limit : c[f] != 0) { out[i0 + f * Threads] = static_cast<Counter>(c[f]); }
      }
    } else if (how == bucket_flush::add) {
      Counter sum[Flush];
#  pragma unroll
      for (int f = 0; f < Flush; ++f) {
        if (c[f] != 0) { sum[f] = out[i0 + f * Threads] + static_cast<Counter>(c[f]); }
      }
#  pragma unroll
      for (int f = 0; f < Flush; ++f) {
        if (c[f] != 0) { out[i0 + f * Threads] = sum[f]; }
      }
    } else {
#  pragma unroll
      for (int f = 0; f < Flush; ++f) {
        if (c[f] != 0) { atomic_add<false>(out + i0 + f * Threads, static_cast<Counter>(c[f])); }
      }
    }
  }
}

/// The bucket of `item`: the last j with items[j] <= item (every bucket has an item).
ONCHIP_DEVICE ONCHIP_FORCEINLINE int bucket_of_item(const unsigned* items, int buckets, unsigned item) {
  int lo = 0, hi = buckets;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (items[mid] <= item) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Cuts the buckets into items (s.items: each bucket's first item, then their number), and returns the number of
/// items. Keys per item: the keys the scatter wrote (fewer than the chunk's samples where samples fell in no bin
/// or in a direct bucket), two items a block, and no fewer than p.item_keys.
template <int Threads>
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned bucket_items(const partition_bins_layout::spans& s,
                                                       const partition_args& p, int t) {
  for (int j = t; j < p.buckets; j += Threads) { s.items[j] = p.sizes[j] & ~direct_mark; }
  block_exclusive_scan<Threads>(s.items, s.items, p.buckets, s.warp_sums);
  const auto share = static_cast<cuda::std::size_t>(gridDim.x) * tuning::partition_items_per_block;
  const cuda::std::size_t fair = (s.items[p.buckets] + share - 1) / share;
  const cuda::std::size_t item_keys = fair > p.item_keys ? fair : p.item_keys;
  for (int j = t; j < p.buckets; j += Threads) {
    const cuda::std::size_t keys = p.sizes[j] & ~direct_mark;
    s.items[j] = keys > item_keys ? static_cast<unsigned>((keys + item_keys - 1) / item_keys) : 1u;
  }
  block_exclusive_scan<Threads>(s.items, s.items, p.buckets, s.warp_sums);
  return s.items[p.buckets];
}

/**
 * The bucket pass: items are buckets, a bucket of more keys than a fair share of the keys written (two items a
 * block, at least p.item_keys) split into parts of near-equal tile ranges; a block zeroes one bucket's counters,
 * counts its item's keys with one shared atomic each, and adds the non-zero counters into the output (plainly
 * where the item is the whole bucket: no other block adds to those bins in this launch), or stores them where
 * the item is the whole bucket, the chunk is fresh and no scatter block flushed into the bucket (where the output
 * was not cleared, a split bucket's bins are cleared first, by its first part to start). Each warp takes an equal
 * share of the item's tiles (an item of a few tiles with long runs keeps every warp busy too), 32 at a time: its
 * lanes read the 32 runs' bounds from the table (coalesced), and gather the 16-byte vectors holding the runs' keys
 * as one sequence, two batches of Gather vectors per lane in flight, counting each vector's keys of the run (and
 * its other keys in spare words).
 */
template <int Threads, int Gather, class Job>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void partition_bins(const Job& job, const partition_args& p) {
  constexpr auto tile = static_cast<unsigned>(partition_tile(sizeof(typename Job::sample_t)));
  const auto s = onchip::carve(partition_bins_layout{p.slice_bits, p.buckets});
  const int t = static_cast<int>(threadIdx.x), lane = t % 32;
  const int slice = 1 << p.slice_bits;
  const cuda::std::size_t bins = static_cast<cuda::std::size_t>(job.total_bins());
  const unsigned items = bucket_items<Threads>(s, p, t);
  // The counters' address as one opaque value: left to itself, ptxas folds the layout's constant offset into each
  // key's address (one more add per key than the counter_word arithmetic needs).
  unsigned counters = static_cast<unsigned>(__cvta_generic_to_shared(s.counters));
  asm("mov.b32 %0, %0;" : "+r"(counters));
  // This lane's spare word for a vector's key 0; key q's is 32 q words on.
  const auto spare = static_cast<unsigned>(__cvta_generic_to_shared(s.spare + lane));
  for (unsigned item = blockIdx.x; item < items; item += gridDim.x) {
    const int j = bucket_of_item(s.items, p.buckets, item);
    // Unmarked: no scatter block counted part of this bucket in place (and flushed into its bins).
    const bool unmarked = (p.sizes[j] & direct_mark) == 0;
    const unsigned parts = s.items[j + 1] - s.items[j], part = item - s.items[j];
    const unsigned first_tile = share_begin(p.tiles, part, parts),
                   end_tile = share_begin(p.tiles, part + 1, parts);
    // Where the chunk overwrites the output and no scatter block flushed into a split bucket, the first of its
    // parts to start clears its bins, and every part adds once they are (the scans no longer read warp_sums).
    const bool split = p.overwrite && parts > 1;
    if (split && t == 0) { s.warp_sums[0] = unmarked && take_claim(p.claims + j) ? 1u : 0u; }
    for (int i = t; i < padded_words(slice) / 4; i += Threads) {
      reinterpret_cast<uint4*>(s.counters)[i] = make_uint4(0, 0, 0, 0);
    }
    __syncthreads();
    if (split && s.warp_sums[0] != 0) {
      auto* out = job.hist[0] + (static_cast<cuda::std::size_t>(j) << p.slice_bits);
      for (int i = t, limit = bucket_bins(bins, static_cast<unsigned>(j), p.slice_bits); i < limit; i += Threads) {
        out[i] = 0;
      }
      release_claim(p.claims + j, t);
    }
    const unsigned span = end_tile - first_tile, warp = t / 32, warps = Threads / 32;
    count_warp_tiles<Gather, tile>(p, static_cast<unsigned>(j) * p.tiles,
                                   first_tile + share_begin(span, warp, warps),
                                   first_tile + share_begin(span, warp + 1, warps), lane, counters, spare);
    if (split && unmarked && t == 0) { await_claim(p.claims + j); }
    __syncthreads();
    bucket_flush how = parts > 1 ? bucket_flush::atomic : bucket_flush::add;
    if (parts == 1 && p.fresh && unmarked) {
      how = p.overwrite ? bucket_flush::store_all : bucket_flush::store_counted;
    }
    flush_bucket<Threads>(s.counters, job.hist[0] + (static_cast<cuda::std::size_t>(j) << p.slice_bits),
                          bucket_bins(bins, static_cast<unsigned>(j), p.slice_bits), how, t);
    __syncthreads();
  }
}

/// A shape the plan takes only from sm_90 on (tuning::partition_scatter_shape) is not compiled for earlier
/// architectures, where it would spill: its body there only traps (run_partition launches it only where its code
/// was compiled for sm_90 or later).
template <class Job, int Threads, int MinBlocks, int Items>
__global__ void __launch_bounds__(Threads, tuning::device_min_blocks(Threads, MinBlocks))
    partition_scatter_kernel(Job job, partition_args p) {
#  if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  if constexpr (tuning::partition_scatter_sm90_only(sizeof(typename Job::sample_t), Threads)) {
    __trap();
  } else
#  endif
  {
    partition_scatter<Threads, Items>(job, p);
  }
}

template <class Job, int Threads, int Gather>
__global__ void __launch_bounds__(Threads, 1) partition_bins_kernel(Job job, partition_args p) {
  partition_bins<Threads, Gather>(job, p);
}
#endif  // __CUDACC__

}  // namespace onchip::detail
