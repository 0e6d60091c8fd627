// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The partition path's layouts: the padded counter words of a bucket, the scatter's and the bucket pass's shared
// memory, the tile and the workspace (kernels/partition.cuh runs them, plan.cuh sizes them).
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/detail/histogram/tuning.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

namespace onchip::detail {

/// The word of key k's counter among a bucket's counters in the partition path's passes: k + k / 32 + k / 1024,
/// one word more every 32 keys and one more every 1024. 32 consecutive keys from a multiple of 32 fall on 32
/// banks, and so do keys 0, 2^s, 2 x 2^s, ... 31 x 2^s for every s from 5 to 10 (any 32 keys 2^s apart on at
/// least 31). Data coarser than the bins, say 16-bit values spread over 2^24 bins, lands every 256th bin, which
/// padding by 32 alone put on 4 banks.
ONCHIP_HOST_DEVICE constexpr unsigned counter_word(unsigned k) { return k + (k >> 5) + (k >> 10); }

/// Words of a bucket's counters (counter_word) for `slice` keys, a power of two.
ONCHIP_HOST_DEVICE constexpr int padded_words(int slice) { return slice + slice / 32 + slice / 1024; }

/// The address which, plus 4 counter_word(bin), is the shared address of a bin's counter among the padded
/// counters of its bucket `bucket` at shared address `counters` (slice_bits at least 10): counter_word(bucket
/// 2^slice_bits + k) is bucket padded_words(2^slice_bits) + counter_word(k), so the scatter's direct counting need
/// not take the key out of the bin (the sum wraps modulo 2^32 back onto the counters).
ONCHIP_HOST_DEVICE constexpr unsigned direct_counters(unsigned counters, unsigned bucket, int slice_bits) {
  return counters - bucket * static_cast<unsigned>(padded_words(1 << slice_bits)) * 4u;
}

/// The shared address of key k's counter among padded counters (padded_words) at shared address `counters`.
ONCHIP_HOST_DEVICE constexpr unsigned padded_counter(unsigned counters, unsigned k) {
  return counters + counter_word(k) * 4u;
}

/// The partition path's scatter: a tile's keys staged by bucket (and a spare slot per thread, for its samples in
/// no bin or counted directly), per bucket its count (and 32 spare counts) and offset in the tile and its keys in
/// the block's tiles so far, and where `direct`, the counters of the block's direct bucket (one bucket's, padded:
/// the bucket a skewed tile piled into, whose later samples the block counts in place of partitioning them).
struct partition_scatter_layout {
  int buckets;
  int tile;
  int slice_bits;
  bool direct;
  int threads;
  struct spans {
    cuda::std::uint16_t* staged;
    unsigned* count;
    unsigned* offset;
    unsigned* total;
    unsigned* warp_sums;
    unsigned* skewed;  // skewed_mark of the last tile with a bucket holding over an eighth of it
    unsigned* direct;  // the direct bucket's counters
  };
  ONCHIP_HOST_DEVICE spans operator()(carver& c) const {
    const auto k = static_cast<cuda::std::size_t>(buckets) + 1;
    spans s{};
    s.staged = c.take_aligned<16, cuda::std::uint16_t>(static_cast<cuda::std::size_t>(tile + threads)).data();
    s.count = c.take<unsigned>(k + 31).data();
    s.offset = c.take<unsigned>(k).data();
    s.total = c.take<unsigned>(k).data();
    s.warp_sums = c.take<unsigned>(32).data();
    s.skewed = c.take<unsigned>(1).data();
    if (direct) {
      s.direct =
          c.take_aligned<16, unsigned>(static_cast<cuda::std::size_t>(padded_words(1 << slice_bits))).data();
    }
    return s;
  }
};

/// The partition path's bucket pass: 8 x 32 spare words (per key of a vector and lane: they take the gathered
/// keys outside a run), one bucket's 32-bit counters, and per bucket its first item.
struct partition_bins_layout {
  int slice_bits;
  int buckets;
  struct spans {
    unsigned* warp_sums;
    unsigned* spare;
    unsigned* counters;
    unsigned* items;
  };
  ONCHIP_HOST_DEVICE spans operator()(carver& c) const {
    spans s{};  // the fixed-size arrays first: their places are constants, not registers, in the kernel
    s.warp_sums = c.take<unsigned>(32).data();
    s.spare = c.take<unsigned>(256).data();
    s.counters =
        c.take_aligned<16, unsigned>(static_cast<cuda::std::size_t>(padded_words(1 << slice_bits))).data();
    s.items = c.take<unsigned>(static_cast<cuda::std::size_t>(buckets) + 1).data();
    return s;
  }
};

/// The partition path's tile for samples of `sample_bytes` bytes: the scatter's samples per block and round, and
/// the keys the table indexes (the same on every device, whatever the scatter's shape there).
ONCHIP_HOST_DEVICE constexpr int partition_tile(int sample_bytes) {
  const tuning::partition_shape shape = tuning::partition_scatter_shape(sample_bytes, 0);
  return shape.threads * shape.items;
}
static_assert(partition_tile(4) ==
                  tuning::partition_scatter_shape(4, 90).threads * tuning::partition_scatter_shape(4, 90).items,
              "the scatter's shapes must make the same tile on every device: the bucket pass compiles it in");

/// Tiles of `tile` samples that `samples` samples take (the last one may be partial).
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t partition_tiles(cuda::std::size_t samples, int tile) {
  return (samples + static_cast<cuda::std::size_t>(tile) - 1) / static_cast<cuda::std::size_t>(tile);
}

/// Bytes of the partition workspace for chunks of `tiles` tiles of `tile` samples: the buckets' sizes and claims,
/// then the chunk's 16-bit keys, then the table of each bucket's first key per tile (16 bytes spare, so a caller's
/// workspace at any 2-byte alignment holds them).
ONCHIP_HOST_DEVICE constexpr cuda::std::size_t partition_workspace_bytes(int buckets, cuda::std::size_t tiles,
                                                                         int tile) {
  const auto k = static_cast<cuda::std::size_t>(buckets);
  return (k * 8 + 15) / 16 * 16 + tiles * static_cast<cuda::std::size_t>(tile) * 2 +
         ((k + 1) * tiles * 2 + 15) / 16 * 16 + 16;
}

}  // namespace onchip::detail
