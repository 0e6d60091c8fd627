// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief A block's histogram in shared memory: its storage comes from the caller's carver, so it composes with
 * the kernel's other shared arrays; merged into a global histogram or stored per block.
 */
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/detail/histogram/counters.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/type_traits>

namespace onchip {

/**
 * @brief How a block_histogram lays out its counters in shared memory (its third template argument).
 *
 * The rule: one copy unless concurrent adds to one counter would retry. Zeroing and merging a copy per warp costs
 * more than the conflicts it saves wherever the add is one atomic instruction: blocks of 256 threads each counting
 * a 4 KiB tile of bytes into 256 bins ran 17-23% faster with one copy than with a copy per warp on an H200, and
 * blocks counting 256 KiB each ran within 2% either way.
 */
enum class block_layout : unsigned char {
  /// one_copy for 32-bit integer and uint16_t counters, whose shared-memory add is one atomic instruction;
  /// warp_copies for 64-bit integer, float and double counters, whose add is a compare-and-swap loop that
  /// retries while other warps hit the same counter.
  automatic,
  /// One counter per bin (two per 32-bit word for uint16_t): the least shared memory to zero and merge.
  one_copy,
  /// A copy per group of warps (one per warp at most, at most 32 copies within 32 KiB together), merged by
  /// flush() and store(): warps that hit the same bins add into different words.
  warp_copies,
};

/**
 * @brief One block's histogram of `Bins` bins in shared memory, laid out as `Layout` says, merged into a global
 * histogram or stored per block.
 *
 * Storage comes from the caller's carver, so it composes with the kernel's other shared arrays:
 * @code
 * struct plan {
 *   int threads;
 *   ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
 *     auto tile = c.take<float>(1024);
 *     return cuda::std::tuple{tile, onchip::block_histogram<256>(c, threads)};
 *   }
 * };
 * // host: kernel<<<grid, threads, onchip::smem_bytes(plan{threads})>>>(...)
 * // device: auto [tile, hist] = onchip::carve(plan{int(blockDim.x)});
 * //         (issue the tile's loads here: their latency then overlaps the zeroing)
 * //         hist.reset(); ... hist.add(bin) ...; hist.flush(global);
 * @endcode
 * @tparam Bins     number of bins, known at compile time
 * @tparam Counter  uint16_t (packed two per word; a counter passing 65535 carries into the 32-bit histogram given
 *                  at construction, so no count is lost), uint32_t, int, unsigned long long, long long, float,
 *                  double (for weights)
 * @tparam Layout   one copy of the counters or a copy per group of warps; automatic picks from `Counter`
 *                  (see block_layout)
 */
template <int Bins, class Counter = unsigned int, block_layout Layout = block_layout::automatic>
class block_histogram {
  static_assert(Bins > 0, "onchip::block_histogram<Bins>: Bins must be positive");
  static_assert(detail::counter_traits<Counter>::block,
                "onchip::block_histogram<Bins, Counter>: Counter must be uint16_t, unsigned int, int, unsigned "
                "long long, long long, float or double");
  using traits = detail::counter_traits<Counter>;

 public:
  /// Counter type of the global histogram: unsigned int for uint16_t counters, else Counter.
  using global_counter = typename traits::word;
  /// The layout this histogram uses (`Layout`, or automatic's choice for `Counter`).
  static constexpr block_layout layout =
      Layout != block_layout::automatic ? Layout
      : (traits::packed16 || sizeof(Counter) == 4) && !cuda::std::is_floating_point_v<Counter>
          ? block_layout::one_copy
          : block_layout::warp_copies;

  /// Copies of the counters kept for a block of `block_threads` threads (1 for one_copy).
  ONCHIP_HOST_DEVICE static constexpr int replicas(int block_threads) noexcept;
  /// Shared memory this histogram takes from a carver for a block of `block_threads` threads (host and device,
  /// usable inside plans).
  ONCHIP_HOST_DEVICE static constexpr cuda::std::size_t smem_bytes(int block_threads) noexcept;

  /**
   * @brief Takes its storage from `smem` (uninitialized: call reset() before adding). Host and device, so plans
   * can create it; on the host (a measuring carver) it only counts bytes.
   * @param smem           the carver of the kernel's shared memory
   * @param block_threads  threads of the block that will use it (decides warp_copies' number of copies)
   * @param carry_target   uint16_t counters only (required there): the 32-bit histogram you will flush into; a
   *                       counter passing 65535 adds 65536 there at once, so no count is lost
   */
  ONCHIP_HOST_DEVICE block_histogram(carver& smem, int block_threads, unsigned* carry_target = nullptr);
#if defined(__CUDACC__)
  /// Takes its storage from `smem` for this block's size (not for uint16_t counters, which need a carry target).
  ONCHIP_DEVICE explicit block_histogram(carver& smem);
  /// uint16_t counters: storage from `smem` for this block's size; carries go to `carry_target` (see above).
  ONCHIP_DEVICE block_histogram(carver& smem, unsigned* carry_target);

  /// Collective: zeroes the counters and synchronizes the block; from its second call on it synchronizes first
  /// too, so earlier adds, flushes and stores are done. The first call does not: it expects this shared memory
  /// unused by the block before (as a carver's arrays are). Loads issued before it (a tile's samples) overlap the
  /// zeroing.
  ONCHIP_DEVICE void reset();
  /// Counts one sample in `bin`; bins outside [0, Bins) are ignored. Any thread, any number of times.
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void add(int bin);
  /// Adds `weight` to `bin` (not for uint16_t counters); bins outside [0, Bins) are ignored.
  template <class Weight>
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void add(int bin, Weight weight);
  /// Counts every bin of a register array.
  template <int N>
  ONCHIP_DEVICE ONCHIP_FORCEINLINE void add(const int (&bins)[N]);
  /// Collective: synchronizes, merges the copies and atomically adds each non-zero bin into `global`.
  ONCHIP_DEVICE void flush(global_counter* global);
  /// Collective: synchronizes, merges the copies and writes every bin of this block's histogram to `out` with
  /// plain stores (for per-block or per-tile results). Not for uint16_t counters.
  ONCHIP_DEVICE void store(Counter* out);
#endif

 private:
  /// Copies held, known at compile time for one_copy.
  ONCHIP_HOST_DEVICE constexpr int copies() const noexcept {
    return layout == block_layout::one_copy ? 1 : replicas_;
  }

  global_counter* storage_ = nullptr;  // replicas_ copies of traits::words(Bins) shared words
  int replicas_ = 1;
  bool counted_ = false;  // reset() ran before (the same in every thread: only collectives change it)
  unsigned* carry_ = nullptr;
};

}  // namespace onchip

#include <onchip/detail/histogram/block_histogram_impl.cuh>
