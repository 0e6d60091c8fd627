// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The general histogram kernels. shared_kernel keeps the bins in shared memory, as `replicas` interleaved 32- or
// 64-bit copies (bin b of copy r at word b * replicas + r; lane l adds to copy l % replicas, so with 32 copies no
// two lanes of a warp ever touch one word or one bank, whatever the data) or as one copy of packed 16-bit counters
// that carry into the output (16-bit range binning: one per sample value, folded into bins at the end); samples in
// no bin go to a spare counter after the bins (no branch per sample, and the ignored count is read from there);
// then one atomic per non-zero bin per block. global_kernel adds one atomic per sample straight into the output,
// for bins beyond shared memory. Neither needs temporary storage.
#pragma once

#include <onchip/binning.cuh>
#include <onchip/detail/histogram/counters.cuh>
#include <onchip/detail/histogram/job.cuh>
#include <onchip/detail/histogram/traverse.cuh>
#include <onchip/detail/histogram/tuning.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstdint>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

namespace onchip::detail {

#if defined(__CUDACC__)
/// One block's shared counters of `bins` bins (`Smem` = the counter type, or uint16_t for packed counters).
template <class Smem, class Job>
struct shared_counters {
  using word_t = typename counter_traits<Smem>::word;
  static constexpr bool packed = counter_traits<Smem>::packed16;
  word_t* words;
  int replicas;
  int bins;

  ONCHIP_DEVICE ONCHIP_FORCEINLINE int stride() const { return counter_traits<Smem>::words(bins); }

  /// Every copy, and the spare counters of samples in no bin (no synchronization).
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void zero() const {
    for (int i = block_rank(); i < replicas * (stride() + 1); i += block_size()) { words[i] = word_t(0); }
  }

  /// Samples counted in no bin, summed over the copies' spare counters by the first warp (0 in other threads;
  /// packed counters: the spare half, without its wraps).
  ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned long long spare_total() const {
    unsigned long long total = 0;
    if constexpr (packed) {
      if (threadIdx.x == 0) { total = (words[bins >> 1] >> ((bins & 1) * 16)) & 0xffffu; }
      return total;
    }
    if (threadIdx.x < 32) {
      for (int r = static_cast<int>(threadIdx.x); r < replicas; r += 32) {
        total += static_cast<unsigned long long>(words[replicas * stride() + r]);
      }
    }
    return total;
  }

  /// Adds every non-zero bin into the output, `base` bins in (after the block is synchronized); packed counters
  /// hold bin b at b ^ flip (packed_flip).
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void flush(const Job& job, cuda::std::size_t base, unsigned flip = 0) const {
    // The copies of a bin are consecutive words, so lanes that all started at copy 0 would meet on one bank at
    // every step (32-way with 32 copies: about 17 us a block for 1024 bins on the H200). Lane l starts at copy
    // l * replicas / 32 instead, and a warp's reads of each step fall on 32 different banks.
    const int first = (block_rank() % 32) * replicas / 32;
    for (int b = block_rank(); b < bins; b += block_size()) {
      const auto sum = packed ? merged<Smem>(words, static_cast<int>(b ^ flip), 1, stride())
                              : merged<Smem>(words + b * replicas, 0, replicas, 1, first);
      if (sum != word_t(0)) { add_to_output(job, b, sum, base); }
    }
  }
};

/// Packed 16-bit counters (two positions a word) and where a wrapped half's counts go: the output bin that
/// out_of(position) gives, in `carry` (the first channel's output), or `missed` for positions of no bin.
template <class OutOf>
struct packed_adder {
  unsigned* words;
  unsigned* carry;
  unsigned positions;
  OutOf out_of;
  long long missed = 0;

  /// Adds `count` to position b; returns the word before. 1 + (b & 1) * 0xffff is one in b's half (two
  /// instructions).
  ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned add(unsigned b, unsigned count) const {
    return atomicAdd_block(words + (b >> 1), count * (1u + (b & 1u) * 0xffffu));
  }
  /// Adds `amount` (modulo 2^32: 0xffffffff takes one away) to position b's output bin, or to `missed`.
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void credit(unsigned b, unsigned amount) {
    if (const int o = out_of(b); o >= 0) {
      atomicAdd(carry + o, amount);
    } else {
      missed += static_cast<int>(amount);  // 0xffffffff: one less
    }
  }
  /// The credits of an add to position b that wrapped its half (code: packed16_wrap's).
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void carry_out(unsigned b, unsigned code) {
    credit(b, 65536u);
    if ((b & 1u) == 0 && b + 1 < positions) { credit(b + 1, packed16_high_credit(code)); }  // the high half's
  }
};

/// A stepped binner (level_bitmap.cuh) whose bins are clamped to [0, bins], bins the spare counter for samples in
/// no bin, so that count_packed_by starts a batch's samples before it finishes any: their loads are in flight
/// together (bitmap_range: the level of a sample's sub-cell).
template <class Binner>
struct clamped_steps {
  const Binner& binner;
  unsigned bins;
  using started = typename Binner::started;
  template <class V>
  ONCHIP_DEVICE ONCHIP_FORCEINLINE started start(V v) const {
    return binner.start(v);
  }
  ONCHIP_DEVICE ONCHIP_FORCEINLINE bool searches(const started& s) const { return binner.searches(s); }
  ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned finish(const started& s) const { return clamp(binner.finish(s)); }
  ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned finish_unmarked(const started& s) const {
    return clamp(binner.finish_unmarked(s));
  }
  template <class V>
  ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned operator()(V v) const {
    return finish(start(v));
  }
  ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned clamp(int b) const { return min(static_cast<unsigned>(b), bins); }
};

/**
 * One channel of packed 16-bit counters, `positions` of them (position p in half p % 2 of word p / 2),
 * unweighted, carrying into the 32-bit output; bin_of(sample) is a position, and out_of(position) the output bin
 * it counts (-1: none, such as the spare counter of samples in no bin). A vector's returning atomics (four at a
 * time) are issued back to back and their old words tested once (a wrap is rare: at most one per 65536 adds to
 * a counter), so a warp does not wait on each atomic's return before the next. A wrap of the low half has also
 * raised the high half by one: 65536 go to the wrapped position's bin, and the next position's loses one, or
 * gains 65535 when that carry wrapped its half too (packed16_wrap; shares of no bin are kept in `missed`).
 */
template <int Vectors, class Job, class BinOf, class OutOf>
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned long long count_packed_by(const Job job, const kernel_args& a,
                                                                    BinOf bin_of, unsigned* words,
                                                                    unsigned positions, OutOf out_of) {
  using sample_t = typename Job::sample_t;
  constexpr int per_vector = 0 < items_per_16b<sample_t> ? items_per_16b<sample_t> : 1;
  packed_adder<OutOf> p{words, reinterpret_cast<unsigned*>(job.hist[0]), positions, out_of};
  auto on_vector = [&](const vec<sample_t, per_vector>& items, cuda::std::size_t) {
    if constexpr (per_vector > 1) {
      if (vector_is_constant<sample_t>(reinterpret_cast<const uint4&>(items))) {
        const unsigned b = bin_of(items[0]);
        if (const unsigned code = packed16_wrap(p.add(b, per_vector), b, per_vector)) { p.carry_out(b, code); }
        return;
      }
    }
    constexpr int batch = per_vector < 4 ? per_vector : 4;  // old words kept for the rare carry (8 spilled)
#  pragma unroll
    for (int k0 = 0; k0 < per_vector; k0 += batch) {
      unsigned b[batch], old[batch];
      bool any = false;
      if constexpr (stepped_binner_v<BinOf>) {
        step_batch(bin_of, items, k0, b);
      } else {
#  pragma unroll
        for (int k = 0; k < batch; ++k) { b[k] = bin_of(items[k0 + k]); }
      }
#  pragma unroll
      for (int k = 0; k < batch; ++k) { old[k] = p.add(b[k], 1u); }
#  pragma unroll
      for (int k = 0; k < batch; ++k) { any |= packed16_full(old[k], b[k]); }
      if (any) {  // rare: at most once per 65536 adds to a counter
#  pragma unroll
        for (int k = 0; k < batch; ++k) {
          if (const unsigned code = packed16_wrap(old[k], b[k], 1u)) { p.carry_out(b[k], code); }
        }
      }
    }
  };
  auto on_item = [&](sample_t v, cuda::std::size_t) {
    const unsigned b = bin_of(v);
    if (const unsigned code = packed16_wrap(p.add(b, 1u), b, 1u)) { p.carry_out(b, code); }
  };
  walk_samples<Vectors>(job, a, on_vector, on_item, no_slices{});
  return static_cast<unsigned long long>(p.missed);
}

/// A 16-bit sample's bits, as a position of packed counters.
template <class Sample>
struct sample_bits {
  ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned operator()(Sample v) const {
    return static_cast<cuda::std::uint16_t>(v);
  }
};

/// The binner type of a job's staged binners (channel 0).
template <class Staged>
using staged_binner_t =
    cuda::std::remove_cv_t<cuda::std::remove_reference_t<decltype(cuda::std::declval<const Staged&>()[0])>>;

/// Where count_packed counts bin b: at b ^ packed_flip. 65536 bins over a whole signed 16-bit type are counted at
/// the sample's bits (no exclusive-or per sample; the flush reads bin b at b ^ 0x8000); 0 otherwise.
template <class Sample, class Staged>
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned packed_flip(const Staged& binners) {
  using binner_t = staged_binner_t<Staged>;
  if constexpr (is_lean_even_v<binner_t> && sizeof(Sample) == 2) {
    return binners[0].template covers_type<Sample>() ? binner_t::template whole_type_flip<Sample> : 0u;
  } else {
    return 0u;
  }
}

/// count_packed_by with the job's binner. When it gives each value of a 16-bit sample type a bin of its own (the
/// range is the whole type), the position is the sample's bits, with no multiply and no bound (a loop of its own;
/// the kernel's flush reads the bins at packed_flip).
template <int Vectors, class Job, class Staged>
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned long long count_packed(const Job job, const kernel_args& a,
                                                                 const Staged binners, unsigned* words) {
  using sample_t = typename Job::sample_t;
  using binner_t = staged_binner_t<Staged>;
  const auto bins = static_cast<unsigned>(job.total_bins());
  if constexpr (is_lean_even_v<binner_t> && sizeof(sample_t) == 2) {
    if (binners[0].template covers_type<sample_t>()) {
      constexpr unsigned flip = binner_t::template whole_type_flip<sample_t>;
      return count_packed_by<Vectors>(job, a, sample_bits<sample_t>{}, words, 65536u,
                                      [](unsigned p) { return static_cast<int>(p ^ flip); });
    }
  }
  auto out_of = [bins](unsigned p) { return p < bins ? static_cast<int>(p) : -1; };  // bins: the spare
  if constexpr (is_lean_even_v<binner_t>) {  // its bins are in [0, bins] already
    return count_packed_by<Vectors>(
        job, a, [&](sample_t v) { return static_cast<unsigned>(binners[0](v)); }, words, bins + 1, out_of);
  } else if constexpr (stepped_binner_v<binner_t>) {
    return count_packed_by<Vectors>(job, a, clamped_steps<binner_t>{binners[0], bins}, words, bins + 1, out_of);
  } else {
    return count_packed_by<Vectors>(
        job, a, [&](sample_t v) { return min(static_cast<unsigned>(binners[0](v)), bins); }, words, bins + 1,
        out_of);
  }
}

/**
 * 16-bit range binning in packed counters: counts every sample value at its bits (the value `offset` above the
 * type's least at position offset ^ whole_type_flip, as for 65536 bins over the whole type), then, after the block
 * synchronizes, folds the values into bins: each thread takes a run of consecutive values (an odd number of words,
 * so the lanes of a warp read 32 different banks), finds the first one's bin in the levels (device memory) and
 * steps through the levels from there, one atomic per bin it meets. Returns the samples in no bin.
 */
template <int Vectors, int Threads, class Job>
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned long long count_folded(const Job job, const kernel_args& a,
                                                                 unsigned* words) {
  using sample_t = typename Job::sample_t;
  constexpr unsigned flip = Job::binners_t::position_flip;
  const auto& table = job.binners;
  unsigned long long missed = count_packed_by<Vectors>(job, a, sample_bits<sample_t>{}, words, 65536u,
                                                       [&](unsigned p) { return table.bin_at(p ^ flip); });
  __syncthreads();
  constexpr int run = ((32768 + Threads - 1) / Threads) | 1;  // words a thread folds (Threads: the block's size)
  auto* const out = reinterpret_cast<unsigned*>(job.hist[0]);
  for (int begin = 2 * run * block_rank(); begin < 65536; begin += 2 * run * block_size()) {  // once
    table.fold(
        begin, min(begin + 2 * run, 65536),
        [&](int v) {
          const unsigned p = static_cast<unsigned>(v) ^ flip;
          return (words[p >> 1] >> ((p & 1u) * 16u)) & 0xffffu;
        },
        [&](int bin, unsigned long long sum) {
          if (bin >= 0) {
            atomicAdd(out + bin, static_cast<unsigned>(sum));
          } else {
            missed += sum;
          }
        });
  }
  return missed;
}

/**
 * Counts into interleaved 32- or 64-bit copies (bin b of copy r at word b * replicas + r, this lane on copy
 * lane % replicas), samples in no bin into the spare counter after the bins: one shared atomic without return per
 * sample, no branch. Segments: each slice is counted, flushed into its segment and zeroed. Flushes the copies into
 * the output; returns how many samples fell in no bin (read from the spare counters for unweighted integer
 * counts, else counted per sample).
 */
template <int Vectors, class Job, class Staged, class Counters>
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned long long count_replicas(const Job job, const kernel_args& a,
                                                                   const Staged binners,
                                                                   const Counters& counters) {
  using counter_t = typename Job::counter_t;
  using word_t = typename Counters::word_t;
  constexpr bool spare_counts = !Job::weighted && cuda::std::is_integral_v<counter_t>;
  // This lane's spare counter and the stride of one bin, as shared-window byte addresses.
  const unsigned slot = (threadIdx.x % 32) & static_cast<unsigned>(a.replicas - 1);
  const int stride = counters.stride();
  const auto spare = static_cast<unsigned>(__cvta_generic_to_shared(counters.words + a.replicas * stride + slot));
  const auto bin_bytes = static_cast<unsigned>(a.replicas * sizeof(word_t));
  const unsigned first =
      spare - static_cast<unsigned>(a.replicas * stride) * static_cast<unsigned>(sizeof(word_t));
  auto add = [&](auto ch, int bin, bool valid, auto weight) {
    if constexpr (Job::active == 1) {  // the spare counter is bin `bins`: min(bin, bins), no select
      const unsigned clamped = min(static_cast<unsigned>(bin), static_cast<unsigned>(counters.bins));
      shared_red(first + clamped * bin_bytes, static_cast<counter_t>(weight));
    } else {
      const int b = job.offset[decltype(ch)::value] + bin;
      shared_red(valid ? first + static_cast<unsigned>(b) * bin_bytes : spare, static_cast<counter_t>(weight));
    }
  };
  unsigned long long missed = 0;
  auto slice = [&](int s, auto&& count) {  // segments: count a slice, flush it into its segment, start afresh
    count();
    __syncthreads();
    counters.flush(job, static_cast<cuda::std::size_t>(s) * counters.bins);
    if constexpr (spare_counts) { missed += counters.spare_total(); }
    __syncthreads();
    counters.zero();
    __syncthreads();
  };
  missed += count_samples<Vectors, spare_counts>(job, a, binners, add, slice);
  if constexpr (!Job::segmented) {
    __syncthreads();
    counters.flush(job, 0);
    if constexpr (spare_counts) { missed += counters.spare_total(); }
  }
  return missed;
}

/// Whether binners are range binning's staged ones: quiet_binners() (grids without search) and bitmaps.
template <class Staged, class = void>
inline constexpr bool range_staged_v = false;
template <class Staged>
inline constexpr bool
    range_staged_v<Staged, cuda::std::void_t<decltype(cuda::std::declval<const Staged&>().quiet_binners())>> =
        true;

/// count(binners) with the binners a block staged: range binning's bitmaps in a kernel for plans that gave them
/// (`Bitmapped`), else its grids without search where every cell is quiet (`Quiet`: the kernel has that loop; the
/// same in every thread of the block), else the binners as staged.
template <bool Quiet, bool Bitmapped, class Staged, class Count>
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned long long count_staged(const Staged& binners, Count&& count) {
  if constexpr (range_staged_v<Staged> && Bitmapped) {
    return count(binners.bitmaps);
  } else {
    if constexpr (range_staged_v<Staged> && Quiet) {
      if (binners.quiet) { return count(binners.quiet_binners()); }
    }
    return count(binners);
  }
}

/// Whether this block leaves the call to the carry grid: a kernel launched as its fallback
/// (kernel_args::carry_fallback_bits) counts only where the levels crowd the grid's cells (synchronizes the
/// block).
template <class Job>
ONCHIP_DEVICE ONCHIP_FORCEINLINE bool carried_elsewhere(const Job& job, const kernel_args& a) {
  if constexpr (is_value_table_v<typename Job::binners_t>) {
    return a.carry_fallback_bits != 0 && !job.binners.block_crowds(a.carry_fallback_bits);
  } else {
    return false;
  }
}

/// Bitmapped: the plan gave range binning's levels bitmaps (launch_plan::level_bitmap), and only that loop is
/// compiled (the grid's search needs more registers).
template <class Job, class Smem, int Threads, int MinBlocks, int Vectors, bool Bitmapped = false>
__global__ void __launch_bounds__(Threads, tuning::device_min_blocks(Threads, MinBlocks))
    shared_kernel(Job job, kernel_args a) {
  constexpr bool packed = counter_traits<Smem>::packed16;
  using word_t = typename counter_traits<Smem>::word;
  if (carried_elsewhere(job, a)) { return; }
  const histogram_call call = typed_call<Job>(a.call);
  const shared_spans spans = onchip::carve(
      layout_of(packed ? histogram_path::shared_packed16 : histogram_path::shared_replicas, call, a.replicas));
  const shared_counters<Smem, Job> counters{reinterpret_cast<word_t*>(spans.counters), a.replicas,
                                            packed ? packed_counters(call) : job.total_bins()};
  zero_output(job, a);
  counters.zero();
  constexpr int packed_vectors = tuning::device_vectors(Vectors, tuning::packed16_pre_hopper_vectors);
  unsigned long long missed = 0;
  if constexpr (packed && is_value_table_v<typename Job::binners_t>) {  // values counted, then folded into bins
    job.binners.check_levels();
    __syncthreads();
    missed = count_folded<packed_vectors, Threads>(job, a, counters.words);
  } else {
    const auto binners = job.binners.template stage<typename Job::sample_t>(spans);
    __syncthreads();
    if constexpr (packed) {  // one channel, not segmented (the plan's rule for this path)
      missed = count_staged<false, Bitmapped>(
          binners, [&](const auto& b) { return count_packed<packed_vectors>(job, a, b, counters.words); });
      __syncthreads();
      counters.flush(job, 0, packed_flip<typename Job::sample_t>(binners));
      missed += counters.spare_total();
    } else {
      constexpr int vectors = tuning::device_vectors(Vectors, tuning::shared_pre_hopper_vectors);
      missed = count_staged<true, Bitmapped>(
          binners, [&](const auto& b) { return count_replicas<vectors>(job, a, b, counters); });
    }
  }
  add_ignored(missed, a.ignored);
}

template <class Job, int Threads, int MinBlocks, int Vectors, bool Bitmapped = false>
__global__ void __launch_bounds__(Threads, tuning::device_min_blocks(Threads, MinBlocks))
    global_kernel(Job job, kernel_args a) {
  if (carried_elsewhere(job, a)) { return; }
  const shared_spans spans = onchip::carve(layout_of(histogram_path::global_atomics, typed_call<Job>(a.call), 0));
  zero_output(job, a);
  const auto binners = job.binners.template stage<typename Job::sample_t>(spans);
  __syncthreads();             // the output is zeroed before anything is added
  cuda::std::size_t base = 0;  // segments: the current segment's first bin
  auto add = [&](auto ch, int bin, bool valid, auto weight) {
    constexpr int c = decltype(ch)::value;
    if (valid) { atomic_add<false>(job.hist[c] + base + bin, static_cast<typename Job::counter_t>(weight)); }
  };
  auto slice = [&](int s, auto&& count) {
    base = static_cast<cuda::std::size_t>(s) * job.total_bins();
    count();
  };
  auto count = [&](const auto& b) { return count_samples<Vectors>(job, a, b, add, slice); };
  add_ignored(count_staged<false, Bitmapped>(binners, count), a.ignored);
}
#endif  // __CUDACC__

}  // namespace onchip::detail
