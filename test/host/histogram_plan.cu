// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The device-wide histogram's launch plan as a table, on the host, for five architectures' limits: every plan fits
// the device it was made for, follows the documented precedence, launches the kernel with the threads the kernel
// is compiled for, and docs/histogram.md's table of paths is the plan's own.
#include <onchip/histogram.cuh>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

using onchip::detail::device_limits;
using onchip::detail::histogram_call;
using onchip::detail::histogram_path;
using onchip::detail::launch_plan;
using onchip::detail::plan_histogram;

struct gpu {
  const char* name;
  device_limits limits;
};

// cudaDeviceGetAttribute's values for one GPU of each architecture (CUDA Programming Guide, compute capability
// tables): arch, SMs, shared memory per SM, opt-in per block, reserved per block, threads, blocks and registers per SM.
const gpu gpus[] = {
    {"T4 (sm_75)", {75, 40, 65536, 65536, 0, 1024, 16, 65536}},
    {"A100 (sm_80)", {80, 108, 167936, 166912, 1024, 2048, 32, 65536}},
    {"RTX 3090 (sm_86)", {86, 82, 102400, 101376, 1024, 1536, 16, 65536}},
    {"RTX 4090 (sm_89)", {89, 128, 102400, 101376, 1024, 1536, 24, 65536}},
    {"H200 (sm_90)", {90, 132, 233472, 232448, 1024, 2048, 32, 65536}},
};
const device_limits& h200 = gpus[4].limits;
const device_limits& a100 = gpus[1].limits;

histogram_call call_of(int sample_bytes, bool integer, int bins, int counter_bytes = 4, bool counter_int32 = true) {
  histogram_call c{};
  c.sample_bytes = sample_bytes;
  c.byte_samples = integer && sample_bytes == 1;
  c.integer_samples = integer;
  c.bins[0] = bins;
  c.counter_bytes = counter_bytes;
  c.counter_takes_packed16 = counter_int32;
  c.row_samples = std::size_t{1} << 28;
  return c;
}

constexpr histogram_path order[] = {histogram_path::byte_lanes, histogram_path::carry_grid,
                                    histogram_path::shared_replicas, histogram_path::shared_packed16,
                                    histogram_path::partition, histogram_path::global_atomics};

// The partition path's own passes on `d` (its scatter's numbers are the plan's threads, grid and smem_bytes).
void check_partition(const histogram_call& c, const device_limits& d, const launch_plan& p,
                     std::size_t cap = onchip::detail::tuning::partition_workspace_cap) {
  namespace tuning = onchip::detail::tuning;
  const onchip::detail::partition_plan& q = p.partition;
  const long long bins = c.total_bins(), slice = 1LL << q.slice_bits;
  CHECK(q.slice_bits >= tuning::partition_min_slice_bits);
  CHECK(q.slice_bits <= 16);  // keys are 16-bit
  CHECK(q.buckets <= tuning::partition_max_buckets);
  CHECK(q.buckets * slice >= bins);  // every bin has a bucket
  CHECK((q.buckets - 1) * slice < bins);
  const std::size_t n = c.row_samples * c.rows;
  CHECK(q.chunk_samples <= n);
  CHECK((n == 0 || q.chunk_samples >= 1));
  // The scatter's shape by sample size and device: 8-byte samples 1024 x 8, narrower ones 1024 x 16 from sm_90 on
  // and 512 x 32 before, tiles of 16384 either way (written out here, not taken from the tuning, so that a change
  // of either shows).
  const bool wide = c.sample_bytes > 4;
  const int threads = wide || d.arch >= 90 ? 1024 : 512, items = wide ? 8 : d.arch >= 90 ? 16 : 32;
  CHECK(tuning::partition_scatter_shape(c.sample_bytes, d.arch).threads == threads);
  CHECK(tuning::partition_scatter_shape(c.sample_bytes, d.arch).items == items);
  CHECK(q.tile == threads * items);
  CHECK(q.tile == onchip::detail::partition_tile(c.sample_bytes));  // the bucket pass's tile, on every device
  CHECK(tuning::partition_scatter_sm90_only(c.sample_bytes, threads) == (!wide && d.arch >= 90));
  CHECK(p.threads == threads);
  const std::size_t tile = static_cast<std::size_t>(threads) * static_cast<std::size_t>(items);
  if (q.chunk_samples < n) { CHECK(q.chunk_samples % tile == 0); }  // whole tiles: chunks keep the alignment
  CHECK(q.chunk_samples < (std::size_t{1} << 31));  // 32-bit key indices, and a size's top bit kept for a mark
  // Room for the buckets' sizes and claims, one chunk's tiles of 16-bit keys, the table of a 16-bit offset per
  // bucket and tile (and the tile's keys), and 15 bytes of realignment, within cap.
  const std::size_t tiles = (q.chunk_samples + tile - 1) / tile;
  CHECK(q.workspace_bytes >= static_cast<std::size_t>(q.buckets) * 8 + tiles * tile * 2 +
                                 (q.buckets + 1) * tiles * 2 + 15);
  CHECK(q.workspace_bytes <= cap);
  CHECK(q.item_keys >= tuning::partition_min_item_keys);
  using onchip::detail::partition_scatter_layout;
  const int t = static_cast<int>(tile);
  CHECK(p.smem_bytes ==
        onchip::smem_bytes(partition_scatter_layout{q.buckets, t, q.slice_bits, q.direct, threads}));
  if (!q.direct) {  // only where a direct bucket's counters would not fit beside the rest
    const std::size_t with =
        onchip::smem_bytes(partition_scatter_layout{q.buckets, t, q.slice_bits, true, threads});
    CHECK((with > d.smem_per_block_optin || with + d.smem_reserved_per_block > d.smem_per_sm));
  }
  CHECK(q.bins_smem == onchip::smem_bytes(onchip::detail::partition_bins_layout{q.slice_bits, q.buckets}));
  for (auto [smem, blocks, block] :
       {std::tuple{p.smem_bytes, p.blocks_per_sm, threads},
        std::tuple{q.bins_smem, q.bins_blocks_per_sm, tuning::partition_bins_threads}}) {
    CHECK(blocks >= 1);
    CHECK(smem <= d.smem_per_block_optin);
    CHECK(blocks * (smem + d.smem_reserved_per_block) <= d.smem_per_sm);
    CHECK(blocks * block <= d.max_threads_per_sm);
  }
  CHECK(p.grid >= 1);
  CHECK(p.grid <= d.sms * p.blocks_per_sm);
  CHECK(q.bins_grid == d.sms * q.bins_blocks_per_sm);
  // No memset where the first chunk's passes store every bin: only where uniform keys leave every bucket to one
  // block of the bucket pass (a bucket's share of the chunk no more than the fair share of a block's item), and
  // never when accumulating.
  if (p.zero_in_kernel) {
    CHECK_FALSE(c.accumulate);
    const auto items = static_cast<std::size_t>(q.bins_grid) * tuning::partition_items_per_block;
    const auto buckets = static_cast<std::size_t>(q.buckets);
    CHECK((q.chunk_samples + buckets - 1) / buckets <= (q.chunk_samples + items - 1) / items);
  }
}

// Everything a plan must satisfy on `d`, whatever it chose.
void check_plan(const histogram_call& c, const device_limits& d) {
  const launch_plan p = plan_histogram(c, d);
  REQUIRE(p.ok());
  const bool wide = p.threads == onchip::detail::tuning::wide.threads && p.path == histogram_path::shared_replicas;
  CHECK((!wide || onchip::detail::wide_candidate(onchip::detail::kind_of(c)) ||
              onchip::detail::wide_range_candidate(onchip::detail::kind_of(c))));
  CHECK((p.variant == onchip::detail::kernel_variant::wide) == wide);  // the launch follows the variant
  const auto shape = onchip::detail::shape_of(p.path, c.sample_bytes, c.level_bytes > 0,
                                              onchip::detail::integer_stream(c.integer_samples,
                                                                             c.wide_integer_binning, c.weighted,
                                                                             c.segments > 0, c.active),
                                              onchip::detail::small_slices(c, d), c.channels, c.active, wide,
                                              p.level_bitmap, d.arch);
  CHECK(onchip::detail::serves(p.path, c));
  CHECK(p.threads == shape.threads);              // the kernel's compiled block size
  CHECK(p.blocks_per_sm >= 1);
  CHECK(p.blocks_per_sm <= shape.blocks);         // launch bounds keep the registers of this many blocks
  CHECK(p.threads * p.blocks_per_sm <= d.max_threads_per_sm);
  CHECK(p.blocks_per_sm <= d.max_blocks_per_sm);
  CHECK(p.smem_bytes <= d.smem_per_block_optin);
  CHECK(p.blocks_per_sm * (p.smem_bytes + d.smem_reserved_per_block) <= d.smem_per_sm);
  if (p.path == histogram_path::partition) {
    check_partition(c, d, p);
    CHECK(onchip::detail::worth_partitioning(c));
  } else {
    CHECK(p.smem_bytes ==
          onchip::smem_bytes(onchip::detail::layout_of(p.path, onchip::detail::planned_call(c, p), p.replicas)));
  }
  CHECK((!p.level_grid || c.level_bytes > 0));
  CHECK((!p.level_bitmap || (c.level_bytes > 0 && !p.level_staged && !p.level_grid)));
  CHECK(p.vectors == shape.vectors);
  CHECK(p.grid >= 1);
  CHECK(p.grid <= d.sms * p.blocks_per_sm);
  if (p.path == histogram_path::shared_replicas) {
    CHECK(p.replicas >= 1);
    CHECK(p.replicas <= 32);
    CHECK((p.replicas & (p.replicas - 1)) == 0);
  }
  if (p.zero_in_kernel) {
    CHECK((p.grid == 1 || p.path == histogram_path::partition));
    CHECK_FALSE(c.accumulate);
  }
  CHECK((p.walk == onchip::detail::traversal::segment_slices) == (c.segments > 0));
  if (p.path == histogram_path::carry_grid) {
    CHECK(onchip::detail::worth_carrying(c));
    CHECK(p.blocks_per_sm == onchip::detail::tuning::carry.blocks);
    CHECK_FALSE(p.zero_in_kernel);  // its fallback may count: a memset zeroes the output
    // The fallback for levels that crowd its cells: the plan without it, on a path of its own.
    const launch_plan fallback = plan_histogram(c, d, histogram_path::automatic,
                                                onchip::detail::tuning::partition_workspace_cap, true,
                                                histogram_path::carry_grid);
    REQUIRE(fallback.ok());
    CHECK(fallback.path != histogram_path::carry_grid);
  }
  histogram_path precedence[6];
  std::copy(std::begin(order), std::end(order), precedence);
  if (c.table_bytes > 0) { std::swap(precedence[2], precedence[3]); }  // 16-bit range binning folds values first
  for (histogram_path earlier : precedence) {  // each earlier path does not serve the call or cannot fit
    if (earlier == p.path) { break; }
    bool earlier_fits = false;
    if (earlier == histogram_path::partition) {
      earlier_fits = onchip::detail::worth_partitioning(c) &&
                     onchip::detail::fit_partition(c, d, onchip::detail::tuning::partition_workspace_cap).ok();
    } else if (earlier == histogram_path::carry_grid) {
      earlier_fits = onchip::detail::serves(earlier, c) && onchip::detail::worth_carrying(c) &&
                     onchip::detail::fit(earlier, c, d).blocks_per_sm >= onchip::detail::tuning::carry.blocks &&
                     plan_histogram(c, d, histogram_path::automatic, onchip::detail::tuning::partition_workspace_cap,
                                    true, histogram_path::carry_grid)
                         .ok();  // and a fallback for crowded levels
    } else {
      earlier_fits = onchip::detail::serves(earlier, c) && onchip::detail::fit(earlier, c, d).ok();
    }
    CHECK_FALSE(earlier_fits);
  }
}

}  // namespace

TEST_CASE("every plan fits its device, for every sample size, bin count, channel set, weight and counter type") {
  const int sample_sizes[] = {1, 2, 4, 8};
  const int bin_counts[] = {1, 2, 10, 100, 256, 1000, 1024, 4096, 20000, 30000, 58111, 58112, 65536, 100000,
                            1 << 20, 1 << 24, 1 << 30};
  const int counter_sizes[] = {4, 8};
  const std::size_t sizes[] = {0, 1, 4096, std::size_t{1} << 20, std::size_t{1} << 30};
  int plans = 0;
  for (const gpu& g : gpus) {
    INFO(std::string(g.name));
    for (int s : sample_sizes) {
      for (int bins : bin_counts) {
        for (int counter : counter_sizes) {
          for (int channels : {1, 2, 4}) {
            for (bool weighted : {false, true}) {
              for (std::size_t n : sizes) {
                histogram_call c = call_of(s, true, bins, counter, counter == 4);
                c.channels = channels;
                c.active = channels == 4 ? 3 : channels;
                for (int a = 0; a < c.active; ++a) { c.bins[a] = channels == 4 ? (bins > (1 << 28) ? 1 << 28 : bins) : bins; }
                c.weighted = weighted;
                c.byte_samples = c.byte_samples && !weighted;  // as detail::call_of() says of a job
                c.row_samples = n;
                INFO("sample bytes " << s << ", bins " << bins << ", counter bytes " << counter << ", channels "
                                     << channels << ", weighted " << weighted << ", n " << n);
                check_plan(c, g.limits);
                ++plans;
              }
            }
          }
        }
      }
    }
  }
  MESSAGE(plans << " plans checked");
}

TEST_CASE("bins beyond shared memory: the partition where it pays, in bounded chunks; global atomics elsewhere") {
  namespace tuning = onchip::detail::tuning;
  const int widest[] = {13, 15, 14, 14, 15};  // bins per bucket (log2) whose counters and offsets fit a block
  // The most bins the partition takes: 4096 buckets, or as many as fit beside the widest bucket's counters: on
  // sm_75, the scatter's three counts per bucket (and 32 spare) beside its 16 KiB tile of keys in 64 KiB (4072).
  const long long most[] = {4072LL << 13, 1LL << 27, 1LL << 26, 1LL << 26, 1LL << 27};
  for (int i = 0; i < 5; ++i) {
    const gpu& g = gpus[i];
    INFO(std::string(g.name));
    for (int bins : {65537, 1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 27, 1 << 28, 1 << 30}) {
      for (int counter : {4, 8}) {
        for (std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 28, (std::size_t{1} << 32) + 5}) {
          histogram_call c = call_of(4, false, bins, counter, false);
          c.row_samples = n;
          INFO(bins << " bins, " << counter << "-byte counters, " << n << " samples");
          check_plan(c, g.limits);
          const launch_plan p = plan_histogram(c, g.limits);
          const long long buckets = ((1LL << widest[i]) - 1 + bins) >> widest[i];
          const bool on_chip = p.path == histogram_path::shared_replicas || p.path == histogram_path::shared_packed16;
          if (on_chip) { continue; }  // 65537 bins fit the H200's and the A100's shared memory
          const bool expected = n >= static_cast<std::size_t>(bins) && bins <= most[i];
          CHECK((p.path == histogram_path::partition) == expected);
          if (p.path != histogram_path::partition) {
            CHECK(p.path == histogram_path::global_atomics);
            continue;
          }
          CHECK(p.partition.slice_bits == widest[i]);
          CHECK(p.partition.buckets == buckets);
          // Inputs past the cap's keys run in chunks: the workspace stays within the cap whatever n is.
          CHECK(p.partition.workspace_bytes <= tuning::partition_workspace_cap);
          // One chunk when all of n's tiles fit with their table rows, the buckets' sizes and claims and 32 bytes
          // of alignment.
          const auto tile = static_cast<std::size_t>(onchip::detail::partition_tile(4));
          const std::size_t tiles = (n + tile - 1) / tile;
          CHECK((p.partition.chunk_samples == n) ==
                (tiles * (tile * 2 + (buckets + 1) * 2) + buckets * 8 + 32 <= tuning::partition_workspace_cap));
        }
      }
    }
  }
  // The output's memset: none at 2^24 bins on the H200 (512 buckets, 264 items a round of the bucket pass), with
  // either counter; still there at 2^22 (128 buckets, each split between blocks) and when accumulating.
  for (int counter : {4, 8}) {
    histogram_call big = call_of(4, false, 1 << 24, counter, false);  // 2^28 samples
    CHECK(plan_histogram(big, h200).zero_in_kernel);
    big.accumulate = true;
    CHECK_FALSE(plan_histogram(big, h200).zero_in_kernel);
    big = call_of(4, false, 1 << 22, counter, false);
    CHECK_FALSE(plan_histogram(big, h200).zero_in_kernel);
  }
  // A bucket's bins: 2^slice_bits, fewer in the last bucket, every bin in one bucket.
  using onchip::detail::bucket_bins;
  CHECK(bucket_bins(65537, 0, 15) == 32768);
  CHECK(bucket_bins(65537, 1, 15) == 32768);
  CHECK(bucket_bins(65537, 2, 15) == 1);
  CHECK(bucket_bins(std::size_t{1} << 27, 4095, 15) == 32768);
  CHECK(bucket_bins((std::size_t{1} << 26) - 3, 2047, 15) == 32765);
  // A bucket's counters in shared memory: every key on its own word below padded_words (whole 16-byte vectors,
  // which the passes clear), 32 consecutive keys from a multiple of 32 on 32 banks, and so keys 2^s apart for s
  // from 5 to 10 (the first 32 of them; any 32 in a row on at least 31, where padding by 32 alone put keys 256
  // apart on 4).
  using onchip::detail::counter_word;
  using onchip::detail::padded_words;
  for (int b = onchip::detail::tuning::partition_min_slice_bits; b <= 16; ++b) {
    const unsigned slice = 1u << b;
    CHECK(padded_words(static_cast<int>(slice)) % 4 == 0);
    std::vector<bool> taken(static_cast<std::size_t>(padded_words(static_cast<int>(slice))), false);
    bool injective = true;
    for (unsigned k = 0; k < slice; ++k) {
      const unsigned w = counter_word(k);
      injective = injective && w < taken.size() && !taken[w];
      if (w < taken.size()) { taken[w] = true; }
    }
    CHECK(injective);
  }
  const auto banks = [](unsigned first, unsigned step) {
    unsigned seen = 0;
    for (unsigned r = 0; r < 32; ++r) { seen |= 1u << (counter_word(first + r * step) % 32); }
    return __builtin_popcount(seen);
  };
  int fewest = 32;
  for (unsigned x = 0; x < (1u << 16); x += 32) { fewest = std::min(fewest, banks(x, 1)); }
  CHECK(fewest == 32);
  for (int s = 5; s <= 10; ++s) {
    const unsigned step = 1u << s;
    CHECK(banks(0, step) == 32);
    fewest = 32;
    for (unsigned first = 0; first + 32 * step <= (1u << 16); ++first) {
      fewest = std::min(fewest, banks(first, step));
    }
    CHECK(fewest >= 31);
  }
  // The scatter's direct counting adds a whole bin's counter_word to direct_counters of its bucket: the same
  // address as the key's counter_word among the bucket's counters, for every bucket (wrapping modulo 2^32).
  namespace tuning = onchip::detail::tuning;
  for (int b = tuning::partition_min_slice_bits; b <= tuning::partition_max_slice_bits; ++b) {
    bool same = true;
    for (unsigned bucket : {0u, 1u, 2u, 511u, 4095u}) {
      const unsigned at = onchip::detail::direct_counters(0x400u, bucket, b);
      for (unsigned k = 0; k < (1u << b); k += 7) {
        same = same && at + counter_word(bucket << b | k) * 4u == 0x400u + counter_word(k) * 4u;
      }
    }
    CHECK(same);
  }
  // What the partition does not serve: several channels, weights, rows, levels, segments, bytes; small inputs.
  histogram_call c = call_of(4, false, 1 << 22);
  CHECK(plan_histogram(c, h200).path == histogram_path::partition);
  const auto refused = [&](histogram_call x) {
    CHECK_FALSE(onchip::detail::serves(histogram_path::partition, x));
    CHECK(plan_histogram(x, h200).path == histogram_path::global_atomics);
    CHECK_FALSE(plan_histogram(x, h200, histogram_path::partition).ok());
  };
  histogram_call x = c;
  x.weighted = true;
  refused(x);
  x = c;
  x.rows = 2;
  x.row_samples /= 2;
  refused(x);
  x = c;
  x.channels = 2;
  x.active = 2;
  x.bins[1] = 1 << 20;
  refused(x);
  x = c;
  x.channels = 2;  // one active channel of two: interleaved samples
  refused(x);
  x = c;
  x.level_bytes = 4;  // 2^22 levels do not fit on chip at all
  CHECK_FALSE(onchip::detail::serves(histogram_path::partition, x));
  x = c;
  x.segments = 4;
  x.rows = 4;
  CHECK_FALSE(onchip::detail::serves(histogram_path::partition, x));
  x = call_of(1, true, 1 << 22);
  CHECK_FALSE(onchip::detail::serves(histogram_path::partition, x));
  x = c;
  x.row_samples = (std::size_t{1} << 22) - 1;  // fewer samples than bins: the atomics cost less
  CHECK(plan_histogram(x, h200).path == histogram_path::global_atomics);
  CHECK(plan_histogram(x, h200, histogram_path::partition).ok());  // but a forced partition serves it
  x.row_samples = 0;
  check_partition(x, h200, plan_histogram(x, h200, histogram_path::partition));
  // A smaller workspace cap: smaller chunks, within it.
  for (std::size_t cap : {std::size_t{1} << 16, std::size_t{1} << 20, std::size_t{100000}}) {
    const launch_plan p = plan_histogram(c, h200, histogram_path::automatic, cap);
    REQUIRE(p.path == histogram_path::partition);
    check_partition(c, h200, p, cap);
    CHECK(p.partition.chunk_samples < c.row_samples);
  }
  // A cap past 8 GiB: chunks still hold fewer than 2^31 keys.
  x = c;
  x.row_samples = std::size_t{1} << 34;
  const launch_plan big = plan_histogram(x, h200, histogram_path::automatic, std::size_t{1} << 35);
  REQUIRE(big.path == histogram_path::partition);
  check_partition(x, h200, big, std::size_t{1} << 35);
  CHECK(big.partition.chunk_samples < x.row_samples);
  CHECK_FALSE(onchip::detail::fit_partition(c, h200, 1000).ok());  // no room for one chunk's keys
  CHECK(plan_histogram(c, h200, histogram_path::automatic, 1000).path == histogram_path::global_atomics);
}

TEST_CASE("16-bit range binning: the carry grid where it fits two blocks an SM, else values folded, else a table") {
  namespace tuning = onchip::detail::tuning;
  for (const gpu& g : gpus) {
    INFO(std::string(g.name));
    for (int bins : {1, 256, 382, 383, 638, 639, 4096, 65535}) {
      INFO(bins << " bins");
      histogram_call c = call_of(2, true, bins);
      c.table_bytes = 65536 * 2;
      // The carry grid: a table of 512 cells beside up to 382 bins' counters, of 256 cells beside up to 638, at
      // two blocks of 1024 threads an SM; inputs of 2^22 samples or more (forced: any), below 2^37.
      const launch_plan carried = plan_histogram(c, g.limits);
      const std::size_t carry_bytes =
          (static_cast<std::size_t>(bins <= 382 ? 512 : 256) + bins + 2) * 128;
      const bool carry_fits = bins <= tuning::carry_max_bins && g.limits.max_threads_per_sm >= 2048 &&
                              2 * (carry_bytes + g.limits.smem_reserved_per_block) <= g.limits.smem_per_sm;
      CHECK((carried.path == histogram_path::carry_grid) == carry_fits);
      if (carried.ok()) { check_plan(c, g.limits); }
      if (carry_fits) {
        CHECK(onchip::detail::carry_cell_bits(c) == (bins <= 382 ? 7 : 8));
        CHECK(carried.smem_bytes >= carry_bytes);
        CHECK(carried.smem_bytes <= carry_bytes + 32);
        histogram_call small = c;
        small.row_samples = tuning::carry_min_samples - 1;
        CHECK(plan_histogram(small, g.limits).path != histogram_path::carry_grid);
        CHECK(plan_histogram(small, g.limits, histogram_path::carry_grid).path == histogram_path::carry_grid);
        histogram_call huge = c;
        huge.row_samples = tuning::carry_max_samples;
        CHECK_FALSE(plan_histogram(huge, g.limits, histogram_path::carry_grid).ok());
        histogram_call wide = c;  // any counter type
        wide.counter_bytes = 8;
        wide.counter_takes_packed16 = false;
        CHECK(plan_histogram(wide, g.limits).path == histogram_path::carry_grid);
      }
      // Without the carry grid (its fallback, for levels that crowd its cells):
      const launch_plan p = plan_histogram(c, g.limits, histogram_path::automatic, tuning::partition_workspace_cap,
                                           true, histogram_path::carry_grid);
      // 65536 packed counters (128 KiB and a word) whatever the bins, no table: where a block can have them
      if (g.limits.smem_per_block_optin >= std::size_t{65536} * 2 + 4) {
        REQUIRE(p.ok());
        CHECK(p.path == histogram_path::shared_packed16);
        CHECK(onchip::detail::folds_values(p.path, c));
        CHECK(p.smem_bytes <= std::size_t{65536} * 2 + 32);  // no table, whatever the bins
      }
      // 64-bit counters cannot take packed carries: the table and the replicas, one wide block
      histogram_call wide = c;
      wide.counter_bytes = 8;
      wide.counter_takes_packed16 = false;
      const launch_plan t = plan_histogram(wide, g.limits, histogram_path::automatic, tuning::partition_workspace_cap,
                                           true, histogram_path::carry_grid);
      if (bins <= 4096 && g.limits.smem_per_block_optin >= std::size_t{65536} * 2 + std::size_t{8} * (bins + 1) * 8) {
        REQUIRE(t.ok());
        check_plan(wide, g.limits);
        CHECK(t.path == histogram_path::shared_replicas);
        CHECK(t.threads == onchip::detail::tuning::wide.threads);
        CHECK(t.replicas >= 8);
      } else if (!t.ok()) {
        CHECK(g.limits.smem_per_block_optin < std::size_t{65536} * 2 + std::size_t{8} * (bins + 1));
      }
      // A forced shared_replicas path still reads the table (the tests compare both)
      if (g.limits.smem_per_block_optin >= std::size_t{65536} * 2 + std::size_t{4} * (bins + 1) * 2) {
        CHECK(plan_histogram(c, g.limits, histogram_path::shared_replicas).ok());
      }
    }
  }
}

TEST_CASE("range binning stages its levels while they fit, else searches them in device memory") {
  for (const gpu& g : gpus) {
    INFO(std::string(g.name));
    for (int levels : {2, 17, 1025, 4097, 16000, 20000, 40000, 65536}) {
      histogram_call c = call_of(4, false, levels - 1);
      c.level_bytes = 4;
      check_plan(c, g.limits);
      const launch_plan p = plan_histogram(c, g.limits);
      const bool shared_bitmap = p.level_bitmap && p.path != histogram_path::global_atomics;
      if (std::size_t{4} * levels <= g.limits.smem_per_block_optin) {
        CHECK((p.level_staged || shared_bitmap));  // the global kernel holds the levels at least
        const std::size_t grid = static_cast<std::size_t>(onchip::detail::level_cell_bytes(4)) *
                                 onchip::detail::tuning::level_cells(levels - 1);
        if (std::size_t{4} * levels + grid + 32 <= g.limits.smem_per_block_optin) {
          CHECK((p.level_grid || shared_bitmap));  // the global kernel holds levels and grid at least
        }
      } else {  // searched in device memory, through a bitmap or the grid where the counters leave room for it
        CHECK_FALSE(p.level_staged);
        CHECK((p.level_grid || p.level_bitmap));
        CHECK(onchip::smem_bytes(onchip::detail::layout_of(p.path, onchip::detail::planned_call(c, p),
                                                           p.replicas)) < std::size_t{4} * levels);
      }
    }
    // Near the limit the levels fit only without their grid: the plan drops it rather than the call, and only
    // when no path fits with it.
    histogram_call crowded = call_of(4, false, 1);
    crowded.level_bytes = 4;
    const int most = static_cast<int>(g.limits.smem_per_block_optin / 4) - 2;  // bins: levels, one spare word
    crowded.bins[0] = most;
    const launch_plan without = plan_histogram(crowded, g.limits);
    REQUIRE(without.ok());
    CHECK_FALSE(without.level_grid);
    check_plan(crowded, g.limits);
    for (histogram_path path : order) { CHECK_FALSE(onchip::detail::first_fit(crowded, g.limits, path).ok()); }
    histogram_call unsorted = call_of(2, true, onchip::detail::max_staged_bins + 1);
    unsorted.level_bytes = 2;  // 65537 2-byte levels fit some GPUs, but cannot be ascending
    CHECK_FALSE(plan_histogram(unsorted, g.limits).ok());
    unsorted.bins[0] = onchip::detail::max_staged_bins;
    CHECK((plan_histogram(unsorted, g.limits).ok() || 2 * static_cast<std::size_t>(unsorted.bins[0] + 1) > g.limits.smem_per_block_optin));
    histogram_call huge = call_of(4, false, onchip::detail::max_staged_bins + 1);
    huge.level_bytes = 4;  // 65537 levels: more than a cell's 16-bit bounds can reach
    CHECK_FALSE(plan_histogram(huge, g.limits).ok());
    huge.bins[0] = onchip::detail::max_staged_bins;
    CHECK(plan_histogram(huge, g.limits).ok());
    huge.bins[0] = 100000;
    huge.sample_bytes = 1;
    huge.byte_samples = true;  // the byte kernels read levels from global memory once per value
    if (g.limits.smem_per_block_optin >= 65536) {
      CHECK(plan_histogram(huge, g.limits).path == histogram_path::byte_lanes);
    }
  }
}

TEST_CASE("range binning takes a bitmap of sub-cells where it keeps the grid's path or spares the global one") {
  namespace detail = onchip::detail;
  const std::size_t bitmap = static_cast<std::size_t>(detail::tuning::bitmap_sub_cells / 32 + 1) * 8;
  for (const gpu& g : gpus) {
    INFO(std::string(g.name));
    for (int levels : {2, 1025, 9000, 12000, 20000, 25000, 34303, 40000, 50679, 50680, 58113, 65536}) {
      for (int level_bytes : {4, 8}) {
        INFO(levels << " levels of " << level_bytes << " bytes");
        histogram_call c = call_of(4, false, levels - 1);
        c.level_bytes = level_bytes;
        check_plan(c, g.limits);
        const launch_plan p = plan_histogram(c, g.limits);
        const launch_plan grid = plan_histogram(c, g.limits, histogram_path::automatic,
                                                detail::tuning::partition_workspace_cap, false);
        REQUIRE(p.ok());
        REQUIRE(grid.ok());
        CHECK_FALSE(grid.level_bitmap);
        histogram_call mapped = c;
        mapped.level_staged = false;
        mapped.level_grid = false;
        mapped.level_bitmap = true;
        if (grid.level_staged && grid.path != histogram_path::global_atomics) {  // shared counters and levels
          CHECK_FALSE(p.level_bitmap);
          CHECK(p.path == grid.path);
        } else if (grid.level_staged) {  // staged levels leave only global atomics: a bitmap on shared counters
          const launch_plan shared = detail::first_fit(mapped, g.limits, histogram_path::automatic);
          const bool spares = shared.ok() && shared.path != histogram_path::global_atomics;
          CHECK(p.level_bitmap == spares);
          CHECK(p.path == (spares ? shared.path : grid.path));
          CHECK(p.level_staged == !spares);
        } else {  // levels in device memory: the bitmap exactly where the grid's path holds it
          CHECK(p.path == grid.path);
          CHECK(p.level_bitmap == detail::first_fit(mapped, g.limits, grid.path).ok());
        }
        if (p.level_bitmap) {
          CHECK_FALSE(p.level_grid);
          CHECK(p.smem_bytes >= bitmap);
          CHECK(p.smem_bytes ==
                onchip::smem_bytes(detail::layout_of(p.path, detail::planned_call(c, p), p.replicas)));
          CHECK(p.smem_bytes <= g.limits.smem_per_block_optin);
        }
      }
    }
  }
  // Worked by hand: 65535 f32 bins on the H200 take 16-bit packed counters (32769 words, 131076 bytes) and the
  // bitmap (8193 entries of 8 bytes, 65544), 196624 bytes with alignment, within the 232448 a block may opt in to;
  // the A100's 166912 hold both up to 50678 bins (25341 words, 101364 bytes, plus 65544).
  histogram_call f32 = call_of(4, false, 65535);
  f32.level_bytes = 4;
  const launch_plan h = plan_histogram(f32, h200);
  CHECK(h.path == histogram_path::shared_packed16);
  CHECK(h.level_bitmap);
  f32.bins[0] = 50678;
  CHECK(plan_histogram(f32, a100).level_bitmap);
  CHECK(plan_histogram(f32, a100).path == histogram_path::shared_packed16);
  f32.bins[0] = 50679;
  CHECK_FALSE(plan_histogram(f32, a100).level_bitmap);
}

TEST_CASE("range binning takes the fine grid only where it costs the plan nothing and the blocks have samples") {
  using onchip::detail::planned_call;
  using onchip::detail::staged_cells;
  using onchip::detail::tuning::fine_level_cells;
  for (const gpu& g : gpus) {
    INFO(std::string(g.name));
    for (int levels : {2, 17, 65, 257, 513, 1025, 4097, 65536}) {
      for (std::size_t samples : {std::size_t{1} << 12, std::size_t{1} << 20, std::size_t{1} << 28}) {
        for (int level_bytes : {4, 8}) {
          INFO(levels << " levels of " << level_bytes << " bytes, " << samples << " samples");
          histogram_call c = call_of(level_bytes, false, levels - 1);
          c.level_bytes = level_bytes;
          c.row_samples = samples;
          const launch_plan p = plan_histogram(c, g.limits);
          if (!p.ok()) { continue; }
          check_plan(c, g.limits);
          histogram_call coarse = c;  // the plan with the grid of level_cells, as it was
          coarse.level_staged = p.level_staged;
          coarse.level_grid = p.level_grid;
          const launch_plan q = onchip::detail::first_fit(coarse, g.limits, histogram_path::automatic);
          REQUIRE(q.ok());
          if (!p.level_grid_fine) {  // then it would have cost something, or the blocks have too few samples
            histogram_call fine = coarse;
            fine.level_grid_fine = true;
            const launch_plan f = onchip::detail::first_fit(fine, g.limits, histogram_path::automatic);
            const bool free = f.ok() && f.path == q.path && f.threads == q.threads &&
                              f.blocks_per_sm == q.blocks_per_sm && f.replicas == q.replicas;
            CHECK((!p.level_grid || !free ||
                   samples / static_cast<std::size_t>(q.grid) < onchip::detail::tuning::fine_grid_block_samples));
            continue;
          }
          CHECK(p.level_grid);
          CHECK(staged_cells(planned_call(c, p), 0) == fine_level_cells);
          // Nothing else given up: the path, threads, blocks per SM and copies are the coarse grid's.
          CHECK(p.path == q.path);
          CHECK(p.threads == q.threads);
          CHECK(p.blocks_per_sm == q.blocks_per_sm);
          CHECK(p.replicas == q.replicas);
          CHECK(samples / static_cast<std::size_t>(p.grid) >= onchip::detail::tuning::fine_grid_block_samples);
        }
      }
    }
  }
  // On the H200 a long input of few levels (log-spaced ones, say) gets it; a short one does not.
  histogram_call c = call_of(4, false, 63);
  c.level_bytes = 4;
  CHECK(plan_histogram(c, h200).level_grid_fine);
  c.row_samples = 4096;
  CHECK_FALSE(plan_histogram(c, h200).level_grid_fine);
  // 1024 bins in two blocks of 512 threads: the fine grid would halve the copies, so the plan keeps 4096 cells; in
  // the one wide block that range binning takes there, 32 copies and the fine grid fit together.
  c = call_of(4, false, 1024);
  c.level_bytes = 4;
  CHECK_FALSE(onchip::detail::first_fit(c, h200, histogram_path::automatic).level_grid_fine);
  const launch_plan p = plan_histogram(c, h200);
  CHECK(p.threads == onchip::detail::tuning::wide.threads);
  CHECK(p.replicas == onchip::detail::tuning::max_replicas);
  CHECK(p.level_grid_fine);
}

TEST_CASE("range binning of 4-byte samples runs as one wide block where that holds more copies") {
  constexpr int wide_threads = onchip::detail::tuning::wide.threads;
  for (const gpu& g : gpus) {
    INFO(std::string(g.name));
    for (int levels : {2, 65, 257, 1025, 4097, 16000}) {
      INFO(levels << " levels");
      histogram_call c = call_of(4, false, levels - 1);
      c.level_bytes = 4;
      check_plan(c, g.limits);
      const launch_plan p = plan_histogram(c, g.limits);
      if (!p.ok() || p.path != histogram_path::shared_replicas) { continue; }
      histogram_call two = c;  // the plan in two blocks of 512 threads, as before
      two.level_grid_fine = p.level_grid_fine;
      two.level_staged = p.level_staged;
      two.level_grid = p.level_grid;
      const launch_plan narrow = onchip::detail::fit(histogram_path::shared_replicas, two, g.limits);
      if (p.threads == wide_threads) {
        CHECK(p.replicas > narrow.replicas);  // wide only for more copies
        CHECK(p.vectors == onchip::detail::tuning::sample_vectors(4));
      } else {
        CHECK(p.replicas == narrow.replicas);
      }
    }
    // Weighted, several channels or 8-byte samples keep the narrow shape.
    histogram_call w = call_of(4, false, 1024);
    w.level_bytes = 4;
    w.weighted = true;
    CHECK(plan_histogram(w, g.limits).threads != wide_threads);
    histogram_call d = call_of(8, false, 1024);
    d.level_bytes = 8;
    CHECK(plan_histogram(d, g.limits).threads != wide_threads);
  }
  histogram_call c = call_of(4, false, 1024);  // on the H200: 32 copies in one block instead of 16 in two
  c.level_bytes = 4;
  CHECK(plan_histogram(c, h200).threads == wide_threads);
  CHECK(plan_histogram(c, h200).replicas == 32);
}

TEST_CASE("segments and rows: segments are sliced, short rows get a block each, long rows the whole grid") {
  for (const gpu& g : gpus) {
    INFO(std::string(g.name));
    for (long long segments : {1LL, 7LL, 1000LL, 1000000LL}) {
      histogram_call c = call_of(2, true, 256);
      c.segments = segments;
      c.rows = static_cast<std::size_t>(segments);
      c.row_samples = 0;
      check_plan(c, g.limits);
      const launch_plan p = plan_histogram(c, g.limits);
      CHECK(p.path == histogram_path::shared_replicas);
      const bool many = segments >= static_cast<long long>(g.limits.sms) * 2;  // two blocks of 512 per SM
      CHECK(p.threads == (many ? 256 : 512));
      CHECK(p.slices >= 1);
      const bool slices_fill_grid = p.slices == 1 || p.slices * segments <= static_cast<long long>(p.grid);
    CHECK(slices_fill_grid);
      if (segments >= static_cast<long long>(g.limits.sms) * p.blocks_per_sm) { CHECK(p.replicas == 1); }
    }
    histogram_call rows = call_of(4, false, 1024);
    rows.row_samples = 640;
    rows.rows = 480;
    check_plan(rows, g.limits);
    CHECK(plan_histogram(rows, g.limits).walk == onchip::detail::traversal::block_per_row);
    rows.row_samples = std::size_t{1} << 24;
    CHECK(plan_histogram(rows, g.limits).walk == onchip::detail::traversal::whole_grid);
  }
}

TEST_CASE("the paths each architecture gets, worked out by hand from its limits") {
  // Bytes: one 64 KiB plane of lane-owned counters, one block of 1024 an SM on every GPU (eight vectors in
  // flight a thread).
  const histogram_call bytes = call_of(1, true, 256);
  CHECK(plan_histogram(bytes, h200).path == histogram_path::byte_lanes);
  CHECK(plan_histogram(bytes, h200).threads == 1024);
  CHECK(plan_histogram(bytes, h200).blocks_per_sm == 1);
  CHECK(plan_histogram(bytes, h200).vectors == 8);
  CHECK(plan_histogram(bytes, h200).smem_bytes == 65536);
  CHECK(plan_histogram(bytes, a100).blocks_per_sm == 1);
  CHECK(plan_histogram(bytes, gpus[2].limits).blocks_per_sm == 1);
  CHECK(plan_histogram(bytes, gpus[0].limits).path == histogram_path::byte_lanes);
  CHECK(plan_histogram(bytes, gpus[0].limits).blocks_per_sm == 1);
  // RGBA, three active channels: two planes (128 KiB), one block of 1024 on the H200 and the A100; sm_86/89 have
  // 99 KiB a block, so the shared replicas count it there.
  histogram_call rgba = bytes;
  rgba.channels = 4;
  rgba.active = 3;
  rgba.bins[1] = rgba.bins[2] = 256;
  CHECK(plan_histogram(rgba, h200).path == histogram_path::byte_lanes);
  CHECK(plan_histogram(rgba, h200).threads == 1024);
  CHECK(plan_histogram(rgba, h200).smem_bytes == 131072);
  CHECK(plan_histogram(rgba, a100).path == histogram_path::byte_lanes);
  CHECK(plan_histogram(rgba, gpus[3].limits).path == histogram_path::shared_replicas);
  // Two active channels share one plane (a half each).
  rgba.active = 2;
  CHECK(plan_histogram(rgba, gpus[3].limits).smem_bytes == 65536);
  // 2^37 bytes or more: still the byte kernel (the call runs it in pieces, see byte_pieces); one or two active
  // channels of bytes have no other path on any GPU (every plan above fits, so the one plane always does).
  histogram_call vast = bytes;
  vast.row_samples = std::size_t{1} << 40;
  CHECK(plan_histogram(vast, h200).path == histogram_path::byte_lanes);
  CHECK_FALSE(onchip::detail::serves(histogram_path::shared_replicas, bytes));
  CHECK_FALSE(onchip::detail::serves(histogram_path::global_atomics, bytes));
  for (const gpu& g : gpus) {
    INFO(std::string(g.name));
    CHECK(plan_histogram(bytes, g.limits).path == histogram_path::byte_lanes);
  }
  // f32, 1024 bins: 1025 words a copy; two blocks of 512 threads leave 113 KiB a block on the H200: 16 copies.
  CHECK(plan_histogram(call_of(4, false, 1024), h200).replicas == 16);
  CHECK(plan_histogram(call_of(4, false, 1024), h200).blocks_per_sm == 2);
  // 65536 bins of 32-bit counters: 256 KiB, too big for one block anywhere; 16-bit counters (128 KiB) fit the
  // H200 and the A100 but not 99 KiB (sm_86/89) or 64 KiB (sm_75), where the partition counts them.
  const histogram_call wide = call_of(2, true, 65536);
  CHECK(plan_histogram(wide, h200).path == histogram_path::shared_packed16);
  CHECK(plan_histogram(wide, a100).path == histogram_path::shared_packed16);
  CHECK(plan_histogram(wide, gpus[2].limits).path == histogram_path::partition);
  CHECK(plan_histogram(wide, gpus[0].limits).path == histogram_path::partition);
  // 2-byte samples, one channel: two blocks of 512 while they hold 8 copies or more (1024 bins: 16 copies of 4100
  // bytes in 113 KiB), else one block of 1024 threads with twice the copies (4096 bins: 8 in 227 KiB, not 4).
  const histogram_call u16 = call_of(2, true, 1024);
  CHECK(plan_histogram(u16, h200).threads == 512);
  CHECK(plan_histogram(u16, h200).replicas == 16);
  const histogram_call u16_4096 = call_of(2, true, 4096);
  CHECK(plan_histogram(u16_4096, h200).threads == 1024);
  CHECK(plan_histogram(u16_4096, h200).blocks_per_sm == 1);
  CHECK(plan_histogram(u16_4096, h200).replicas == 8);
  histogram_call f32_4096 = call_of(4, false, 4096);  // 4-byte samples keep two blocks
  CHECK(plan_histogram(f32_4096, h200).threads == 512);
  CHECK(plan_histogram(f32_4096, h200).replicas == 4);
  // 64-bit counters never pack; 2^20 bins fit nowhere on chip: 32 buckets of 2^15 bins.
  CHECK(plan_histogram(call_of(2, true, 65536, 8, false), h200).path == histogram_path::partition);
  CHECK(plan_histogram(call_of(4, false, 1 << 20), h200).path == histogram_path::partition);
  CHECK(plan_histogram(call_of(4, false, 1 << 20), h200).partition.buckets == 32);
  // Vectors in flight in the shared kernel: eight for one unweighted, unsegmented stream of 4-byte integers binned
  // evenly, four for f32 and when weighted, segmented or range-binned (sm_90 runs the eight; earlier GPUs cap the
  // kernel at four).
  const histogram_call even_i32 = call_of(4, true, 10);
  CHECK(plan_histogram(even_i32, h200).path == histogram_path::shared_replicas);
  CHECK(plan_histogram(even_i32, h200).vectors == 8);
  CHECK(plan_histogram(call_of(4, false, 1024), h200).vectors == 4);
  histogram_call variant = even_i32;
  variant.weighted = true;
  CHECK(plan_histogram(variant, h200).vectors == 4);
  variant = even_i32;
  variant.level_bytes = 4;
  CHECK(plan_histogram(variant, h200).vectors == 4);
  variant = even_i32;
  variant.segments = 8;
  CHECK(plan_histogram(variant, h200).vectors == 4);
  CHECK(plan_histogram(call_of(8, true, 100), h200).vectors == 4);
  // Small inputs: 4 KiB of f32 is one block (512 threads x 4 vectors of 16 bytes hold 32 KiB) with one copy of
  // the 1025 counters, zeroing its own output; 1 MiB is 32 blocks of 8192 samples, 2 copies (4 would be 8200
  // words for 8192 samples, more than one word per 2 samples).
  histogram_call small = call_of(4, false, 1024);
  small.row_samples = 1024;
  CHECK(plan_histogram(small, h200).grid == 1);
  CHECK(plan_histogram(small, h200).replicas == 1);
  CHECK(plan_histogram(small, h200).zero_in_kernel);
  small.accumulate = true;
  CHECK_FALSE(plan_histogram(small, h200).zero_in_kernel);
  small.row_samples = 262144;
  CHECK(plan_histogram(small, h200).grid == 32);
  CHECK(plan_histogram(small, h200).replicas == 2);
  // Small byte inputs: the byte kernel gets one block for each 16 KiB (1024 threads x one vector of 16 bytes), up
  // to the 132 resident blocks (one an SM).
  histogram_call small_bytes = call_of(1, true, 256);
  small_bytes.row_samples = 131072;
  CHECK(plan_histogram(small_bytes, h200).path == histogram_path::byte_lanes);
  CHECK(plan_histogram(small_bytes, h200).grid == 8);
  small_bytes.row_samples = 1 << 20;
  CHECK(plan_histogram(small_bytes, h200).grid == 64);
  small_bytes.row_samples = 16384 + 1;
  CHECK(plan_histogram(small_bytes, h200).grid == 2);
  small_bytes.row_samples = 2 << 20;
  CHECK(plan_histogram(small_bytes, h200).grid == 128);
  small_bytes.row_samples = 16 << 20;
  CHECK(plan_histogram(small_bytes, h200).grid == 132);
  small_bytes.row_samples = 4096;
  CHECK(plan_histogram(small_bytes, h200).grid == 1);
  CHECK(plan_histogram(small_bytes, h200).zero_in_kernel);
}

TEST_CASE("a forced path is used where it serves the call, and refused where it does not") {
  const histogram_call bytes = call_of(1, true, 256);
  CHECK_FALSE(plan_histogram(bytes, h200, histogram_path::shared_replicas).ok());  // one channel: byte kernel only
  CHECK_FALSE(plan_histogram(bytes, h200, histogram_path::global_atomics).ok());
  histogram_call rgba = bytes;  // three active channels: the shared replicas and global atomics where planes do not fit
  rgba.channels = 4;
  rgba.active = 3;
  rgba.bins[1] = rgba.bins[2] = 256;
  CHECK(plan_histogram(rgba, h200, histogram_path::shared_replicas).path == histogram_path::shared_replicas);
  CHECK(plan_histogram(rgba, h200, histogram_path::global_atomics).path == histogram_path::global_atomics);
  histogram_call weighted = bytes;  // weighted bytes are not the byte kernel's
  weighted.byte_samples = false;
  weighted.weighted = true;
  CHECK_FALSE(plan_histogram(weighted, h200, histogram_path::byte_lanes).ok());
  CHECK(plan_histogram(weighted, h200).path == histogram_path::shared_replicas);
  CHECK_FALSE(plan_histogram(call_of(4, false, 256), h200, histogram_path::byte_lanes).ok());
  CHECK_FALSE(plan_histogram(call_of(4, false, 1 << 20), h200, histogram_path::shared_replicas).ok());
  histogram_call segments = bytes;  // the byte kernel does not take segments; the shared replicas do
  segments.segments = 10;
  segments.rows = 10;
  CHECK_FALSE(plan_histogram(segments, h200, histogram_path::byte_lanes).ok());
  CHECK(plan_histogram(segments, h200, histogram_path::shared_replicas).path == histogram_path::shared_replicas);
}

TEST_CASE("byte inputs too large for one launch of the byte kernel are cut into pieces below the limit") {
  using onchip::detail::plan_byte_pieces;
  // Every row length, channel count and limit of a small grid: whole rows where a row fits, each launch below the
  // limit and as large as it can be; rows cut into pieces of whole 16-byte vectors of whole pixels otherwise.
  for (std::size_t limit : {65u, 100u, 257u, 1000u, 4097u}) {
    for (int channels = 1; channels <= 4; ++channels) {
      for (std::size_t row = 1; row <= 3 * limit; ++row) {
        INFO("limit " << limit << ", channels " << channels << ", row bytes " << row);
        const auto p = plan_byte_pieces(row, channels, limit);
        if (row < limit) {
          REQUIRE(p.rows_per_piece >= 1);
          CHECK(p.rows_per_piece * row < limit);
          CHECK((p.rows_per_piece + 1) * row >= limit);
        } else {
          REQUIRE(p.rows_per_piece == 0);
          const std::size_t unit = 16 * static_cast<std::size_t>(channels);
          CHECK(p.piece_bytes > 0);
          CHECK(p.piece_bytes < limit);
          CHECK(p.piece_bytes % unit == 0);
          CHECK(p.piece_bytes + unit >= limit);
        }
      }
    }
  }
  // The real limit: a row of 2^40 bytes goes in pieces just under 128 GiB.
  const auto vast = plan_byte_pieces(std::size_t{1} << 40, 4, onchip::detail::tuning::byte_lane_max_bytes);
  CHECK(vast.rows_per_piece == 0);
  CHECK(vast.piece_bytes == (std::size_t{1} << 37) - 64);
}

namespace {

// The plan as a job type describes it, so the typed kernels and the plan agree on threads and on vectors in
// flight (the partition: its scatter's threads, its bucket pass's batch).
template <class Sample, class Counter, class Binners>
void check_typed(int bins) {
  using job_t = onchip::detail::histogram_job<1, 1, Sample, onchip::detail::no_weights, Binners, Counter>;
  job_t job{};
  job.offset[1] = bins;
  job.row_samples = 1 << 20;
  job.rows = 1;
  const launch_plan p = plan_histogram(onchip::detail::call_of(job, false), h200);
  REQUIRE(p.ok());
  int threads = 0, vectors = 0;
  switch (p.path) {
    case histogram_path::byte_lanes:
      threads = onchip::detail::shape_v<histogram_path::byte_lanes, job_t>.threads;
      vectors = onchip::detail::shape_v<histogram_path::byte_lanes, job_t>.vectors;
      break;
    case histogram_path::shared_replicas:
      threads = onchip::detail::shape_v<histogram_path::shared_replicas, job_t>.threads;
      vectors = onchip::detail::shape_v<histogram_path::shared_replicas, job_t>.vectors;
      if (p.variant == onchip::detail::kernel_variant::wide) {
        // the wide kernel, launched by the same rule
        threads = onchip::detail::shape_v<histogram_path::shared_replicas, job_t, false, true>.threads;
        vectors = onchip::detail::shape_v<histogram_path::shared_replicas, job_t, false, true>.vectors;
      }
      break;
    case histogram_path::shared_packed16:
      threads = p.level_bitmap
                    ? onchip::detail::shape_v<histogram_path::shared_packed16, job_t, false, false, true>.threads
                    : onchip::detail::shape_v<histogram_path::shared_packed16, job_t>.threads;
      vectors = onchip::detail::shape_v<histogram_path::shared_packed16, job_t>.vectors;
      break;
    case histogram_path::partition:
      threads = onchip::detail::tuning::partition_scatter_shape(static_cast<int>(sizeof(Sample)), h200.arch)
                    .threads;
      vectors = onchip::detail::tuning::partition_bins_gather;  // the bucket pass's batch, as launched
      break;
    default:
      threads = onchip::detail::shape_v<histogram_path::global_atomics, job_t>.threads;
      vectors = onchip::detail::shape_v<histogram_path::global_atomics, job_t>.vectors;
      break;
  }
  CHECK(p.threads == threads);
  CHECK(p.vectors == vectors);
  // The kernel carves from typed_call (the fields the job's types fix, as constants): the same bytes as planned.
  const histogram_call described = onchip::detail::call_of(job, false);
  const histogram_call carved = onchip::detail::typed_call<job_t>(onchip::detail::planned_call(described, p));
  if (p.path != histogram_path::partition) {
    CHECK(onchip::smem_bytes(onchip::detail::layout_of(p.path, carved, p.replicas)) == p.smem_bytes);
  }
}

// typed_call<Job> gives back every field of the call call_of() made of a job of that type.
template <class Job>
void check_typed_call(const Job& job) {
  const histogram_call c = onchip::detail::call_of(job, false), t = onchip::detail::typed_call<Job>(c);
  CHECK(t.sample_bytes == c.sample_bytes);
  CHECK(t.channels == c.channels);
  CHECK(t.active == c.active);
  for (int a = 0; a < onchip::detail::max_channels; ++a) { CHECK(t.bins[a] == c.bins[a]); }
  CHECK(t.level_bytes == c.level_bytes);
  CHECK(t.table_bytes == c.table_bytes);
  CHECK(t.weighted == c.weighted);
  CHECK(t.counter_bytes == c.counter_bytes);
}

}  // namespace

TEST_CASE("a kernel's typed call is the call the host described") {
  using onchip::detail::histogram_job;
  using onchip::detail::no_weights;
  using onchip::detail::plain_binners;
  histogram_job<4, 3, std::uint8_t, no_weights, plain_binners<3, onchip::bin_even<int>>, unsigned> rgba{};
  rgba.offset[1] = 256, rgba.offset[2] = 512, rgba.offset[3] = 600;
  check_typed_call(rgba);
  histogram_job<1, 1, float, float, plain_binners<1, onchip::bin_even<float>>, double> weighted{};
  weighted.offset[1] = 1000;
  check_typed_call(weighted);
  histogram_job<1, 1, float, no_weights, onchip::detail::range_binners<1, double>, unsigned long long> range{};
  range.offset[1] = 1024;
  check_typed_call(range);
  histogram_job<1, 1, std::uint16_t, no_weights, onchip::detail::value_table_binners<std::uint16_t, int>, unsigned>
      table{};
  table.offset[1] = 256;
  check_typed_call(table);
}

TEST_CASE("plans of typed jobs launch the threads their kernels are compiled for") {
  using onchip::detail::plain_binners;
  using onchip::detail::range_binners;
  check_typed<std::uint8_t, unsigned, plain_binners<1, onchip::bin_even<int>>>(256);
  check_typed<std::uint16_t, unsigned, plain_binners<1, onchip::bin_even<int>>>(65536);
  check_typed<std::uint16_t, unsigned, plain_binners<1, onchip::detail::lean_even<int>>>(4096);
  check_typed<std::int16_t, unsigned, plain_binners<1, onchip::detail::lean_even<int>>>(1024);
  check_typed<double, unsigned, plain_binners<1, onchip::bin_even<double>>>(65536);
  check_typed<float, unsigned, range_binners<1, float>>(20000);
  check_typed<float, unsigned, range_binners<1, float>>(40000);  // a bitmap on the shared replicas
  check_typed<float, unsigned, range_binners<1, float>>(65535);  // a bitmap on the packed counters
  check_typed<float, unsigned long long, range_binners<1, float>>(65535);  // a bitmap on global atomics
  check_typed<float, unsigned long long, plain_binners<1, onchip::bin_even<float>>>(1 << 20);
  check_typed<float, float, plain_binners<1, onchip::bin_even<float>>>(1000);
  // 4-byte integers: eight vectors in flight when binned with 32-bit products, the usual four with the wide
  // binning's 128-bit ones (eight spilled).
  check_typed<std::uint32_t, unsigned long long, plain_binners<1, onchip::detail::narrow_even<long long>>>(1024);
  check_typed<std::uint32_t, unsigned long long, plain_binners<1, onchip::bin_even<long long>>>(1024);
  using narrow_job = onchip::detail::histogram_job<1, 1, std::int32_t, onchip::detail::no_weights,
                                                   plain_binners<1, onchip::detail::narrow_even<int>>, unsigned>;
  using wide_job = onchip::detail::histogram_job<1, 1, std::int32_t, onchip::detail::no_weights,
                                                 plain_binners<1, onchip::bin_even<long long>>, unsigned>;
  CHECK(onchip::detail::shape_v<histogram_path::shared_replicas, narrow_job>.vectors == 8);
  CHECK(onchip::detail::shape_v<histogram_path::shared_replicas, wide_job>.vectors ==
        onchip::detail::tuning::sample_vectors(4));
}

namespace {

// docs/histogram.md's table of paths: for each kind of call, the bin ranges each path serves on the H200, the A100
// and the RTX 4090 (bins per active channel, the same in each).
std::string path_at(histogram_call c, int bins, const device_limits& d) {
  for (int a = 0; a < c.active; ++a) { c.bins[a] = bins; }
  const launch_plan p = plan_histogram(c, d);
  if (!p.ok()) {  // the one call the plan refuses: range binning of more levels than a cell's bounds reach
    CHECK(c.level_bytes > 0);
    CHECK(bins > onchip::detail::max_staged_bins);
    return "refused (more than 65536 levels)";
  }
  const bool range = c.level_bytes > 0;
  const std::string where = range && !p.level_staged ? ", levels in device memory" : "";
  const std::string how = !range            ? ""
                          : p.level_bitmap   ? " through a bitmap"
                          : !p.level_grid    ? " without grid"
                                             : "";
  return std::string(onchip::detail::path_name(p.path)) + where + how;
}

std::string ranges(const histogram_call& c, const device_limits& d) {
  std::ostringstream out;
  int lo = 1;
  while (lo <= (1 << 30)) {
    const std::string path = path_at(c, lo, d);
    int hi = lo;  // the last bin count with the same path (paths change monotonically with the bin count)
    for (int step = 1 << 29; step > 0; step /= 2) {
      if (hi + step <= (1 << 30) && path_at(c, hi + step, d) == path) { hi += step; }
    }
    out << (lo == 1 ? "" : "; ") << lo << (hi == (1 << 30) ? "+" : "–" + std::to_string(hi)) << ": "
        << path;
    if (hi == (1 << 30)) { break; }
    lo = hi + 1;
  }
  return out.str();
}

std::string path_table() {
  struct row {
    const char* what;
    histogram_call call;
  };
  histogram_call range = call_of(4, false, 1);
  range.level_bytes = 4;
  histogram_call weighted = call_of(4, false, 1, 4, false);
  weighted.weighted = true;
  histogram_call rgba = call_of(1, true, 1);
  rgba.channels = 4;
  rgba.active = 3;
  const row rows[] = {
      {"1-byte integers, one or two active channels", call_of(1, true, 1)},
      {"1-byte integers, three or four active channels (e.g. RGBA)", rgba},
      {"2-, 4- or 8-byte samples, 32-bit integer counters", call_of(4, false, 1)},
      {"2-, 4- or 8-byte samples, 64-bit or floating counters", call_of(4, false, 1, 8, false)},
      {"float samples, weighted, float counters", weighted},
      {"float samples, range binning (float levels), 32-bit counters", range},
  };
  std::ostringstream out;
  const device_limits& rtx4090 = gpus[3].limits;
  out << "| call | H200 (sm_90), bins: path | A100 (sm_80), bins: path | RTX 4090 (sm_89), bins: path |\n"
      << "|---|---|---|---|\n";
  for (const row& r : rows) {
    out << "| " << r.what << " | " << ranges(r.call, h200) << " | " << ranges(r.call, a100) << " | "
        << ranges(r.call, rtx4090) << " |\n";
  }
  return out.str();
}

}  // namespace

TEST_CASE("docs/histogram.md's table of kernel paths is the plan's") {
  std::ifstream file(ONCHIP_HISTOGRAM_GUIDE);
  REQUIRE(file.good());
  std::stringstream text;
  text << file.rdbuf();
  const std::string guide = text.str(), begin = "<!-- plan-table -->\n", end = "<!-- /plan-table -->";
  const auto a = guide.find(begin), b = guide.find(end);
  REQUIRE(a != std::string::npos);
  REQUIRE(b != std::string::npos);
  const std::string table = path_table();
  INFO("the plan's table, to paste between the markers:\n" << table);
  CHECK(guide.substr(a + begin.size(), b - a - begin.size()) == table);
}

TEST_CASE("same_call tells calls apart by every field (the per-thread plan memo keys on it)") {
  using onchip::detail::same_call;
  histogram_call base{};
  base.bins[0] = 1024;
  base.row_samples = 4096;
  CHECK(same_call(base, base));
  std::vector<histogram_call> changed(21, base);
  changed[0].sample_bytes = 2;
  changed[1].byte_samples = true;
  changed[2].integer_samples = true;
  changed[3].wide_integer_binning = true;
  changed[4].channels = 4;
  changed[5].active = 2;
  changed[6].bins[0] = 1025;
  changed[7].bins[3] = 1;
  changed[8].level_bytes = 4;
  changed[9].level_grid = false;
  changed[18].level_staged = false;
  changed[19].level_grid_fine = true;
  changed[20].level_bitmap = true;
  changed[10].table_bytes = 65536;
  changed[11].weighted = true;
  changed[12].counter_bytes = 8;
  changed[13].counter_takes_packed16 = true;
  changed[14].segments = 3;
  changed[15].row_samples = 4097;
  changed[16].rows = 2;
  changed[17].accumulate = true;
  for (const histogram_call& c : changed) {
    CHECK_FALSE(same_call(base, c));
    CHECK_FALSE(same_call(c, base));
  }
}
