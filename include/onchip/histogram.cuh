// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief Block-privatized histograms: binning functors, a block-level primitive whose shared storage comes from
 * the caller's carver, and a device-wide API (even, range and custom binning; 2-D regions; interleaved channels;
 * weights; segments) that needs no temporary storage.
 */
#pragma once

#include <onchip/detail/config.cuh>
#include <onchip/detail/error.cuh>
#include <onchip/detail/histogram/binning.cuh>
#include <onchip/detail/histogram/counters.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <cuda_runtime_api.h>

namespace onchip {

// ---------------------------------------------------------------------------------------------------------------
// Binning: callables `int(Sample)` returning the bin, or a negative value for samples to ignore.
// ---------------------------------------------------------------------------------------------------------------

namespace detail {
template <class Level>
struct narrow_even;
template <class Level>
struct lean_even;
}  // namespace detail

/**
 * @brief `num_bins` equal-width bins over `[lower, upper)`; samples outside, and NaN, are ignored.
 *
 * Integer samples with integer levels get exactly CUB's bins, `floor((x - lower) * num_bins / (upper - lower))`,
 * computed without overflow for any 64-bit range and without a per-sample division. Floating samples (or levels)
 * use `(x - lower) * (num_bins / (upper - lower))` in float (double when either side is double, or for integer
 * samples wider than 16 bits), and a sample below `upper` never lands in bin `num_bins`.
 * @tparam Level  type of the bounds, independent of the sample type (int levels for u8 or int8 samples, float
 *                levels for __half samples, ...)
 */
template <class Level>
class bin_even {
  static_assert(cuda::std::is_arithmetic_v<Level>, "onchip::bin_even<Level>: Level must be an arithmetic type");

 public:
  /// No bins (not valid()).
  bin_even() = default;
  /// Bins over `[lower, upper)`; call valid() before use (the device-wide API does).
  ONCHIP_HOST_DEVICE bin_even(Level lower, Level upper, int num_bins) noexcept;
  /// The bin of `x`, or -1.
  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample x) const;
  /// Number of bins.
  ONCHIP_HOST_DEVICE constexpr int bins() const noexcept { return bins_; }
  /// True when num_bins >= 1 and lower < upper, both finite, and (floating levels) upper - lower and
  /// num_bins / (upper - lower) are finite in Level's precision.
  ONCHIP_HOST_DEVICE bool valid() const noexcept;

 private:
  friend struct detail::narrow_even<Level>;
  friend struct detail::lean_even<Level>;
  template <bool Wide, class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int bin(Sample x) const;

  Level lower_{}, upper_{};
  int bins_ = 0;
  double scale_ = 0;               // num_bins / (upper - lower)
  cuda::std::uint64_t range_ = 0;  // integer levels: upper - lower
  // Integer levels with range <= 2^32: bin = offset * quotient_ + (offset * magic_) >> 64, where
  // num_bins = quotient_ * range + remainder and magic_ = ceil(remainder * 2^64 / range) (detail::even_bin_magic).
  cuda::std::uint64_t magic_ = 0;
  cuda::std::uint32_t quotient_ = 0;
  bool narrow_ = false;
};

/**
 * @brief Bins between consecutive `levels`: bin `i` holds `levels[i] <= x < levels[i + 1]`, found by binary search.
 * `num_levels - 1` bins. Precondition: levels sorted ascending (a checked-mode device check in the device-wide
 * API; unchecked, unsorted levels give unspecified bins but nothing is read or written out of bounds). The
 * device-wide API stages the levels in shared memory with a grid of cells over them, so most samples are binned
 * by one table read instead of a search.
 */
template <class Level>
class bin_range {
 public:
  /// No levels.
  bin_range() = default;
  /// Views `num_levels` levels at `levels` (device memory, for device code).
  ONCHIP_HOST_DEVICE constexpr bin_range(const Level* levels, int num_levels) noexcept
      : levels_(levels), num_levels_(num_levels) {}
  /// The bin of `x`, or -1.
  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample x) const;
  /// Number of bins.
  ONCHIP_HOST_DEVICE constexpr int bins() const noexcept { return num_levels_ - 1; }
  /// The levels.
  ONCHIP_HOST_DEVICE constexpr const Level* levels() const noexcept { return levels_; }
  /// Number of levels.
  ONCHIP_HOST_DEVICE constexpr int num_levels() const noexcept { return num_levels_; }

 private:
  const Level* levels_ = nullptr;
  int num_levels_ = 0;
};

/// The sample is its own bin (integer samples; negative or non-integer values are ignored).
struct bin_identity {
  /// `x` as a bin, or -1.
  template <class Sample>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE int operator()(Sample x) const;
};

// ---------------------------------------------------------------------------------------------------------------
// Block level
// ---------------------------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------------------------
// Device-wide API: host functions, stream-ordered. Output is overwritten (every bin written) unless `accumulate`
// is true. Errors: cudaErrorInvalidValue with last_error_message() for bad input, before anything is launched or
// written. Everything whose bins fit on chip needs no temporary storage; one channel of more bins than shared
// memory holds (e.g. 2^20-2^27 bins on an H200) is counted in two passes through a workspace: by default
// allocated and freed stream-ordered from the library's own memory pool on the device, never more than 576 MiB
// whatever the input's size, or given by the caller (histogram_options::workspace, sized by
// histogram_workspace_bytes). The pool keeps up to 576 MiB reserved between calls, so that repeated calls do not
// map memory again (histogram_release_workspace gives it back). If the allocation fails, the call counts with one
// global atomic per sample instead.
// ---------------------------------------------------------------------------------------------------------------

/// Options shared by the device-wide functions.
struct histogram_options {
  /// Add into the histogram instead of overwriting it.
  bool accumulate = false;
  /// If not null, receives (added atomically) the number of samples that fell in no bin (out of range, NaN).
  unsigned long long* ignored = nullptr;
  /// Device memory of at least histogram_workspace_bytes() bytes (any 2-byte alignment) for calls that need a
  /// workspace, used stream-ordered; null: such calls allocate their own from the library's memory pool.
  void* workspace = nullptr;
  /// Bytes at `workspace`.
  cuda::std::size_t workspace_bytes = 0;
  /// If not null, receives (on the host, when the call returns) the name of the kernel path that ran:
  /// "byte_lanes", "carry_grid", "shared_replicas", "shared_packed16", "partition" or "global_atomics" (a static
  /// string). "carry_grid" counts with another path after it where the levels crowd its cells.
  const char** path = nullptr;
};

/**
 * @brief Bytes of workspace a one-channel histogram_even or histogram call of `n` samples of `Sample` into
 * `num_bins` bins of `Counter` needs on the current device: 0 when it runs on chip (no workspace).
 * @tparam Sample   the samples' type
 * @tparam Counter  the histogram's counter type
 * @param n         number of samples the call will have
 * @param num_bins  number of bins the call will have
 * @param bytes     receives the size; pass a workspace of at least this in histogram_options::workspace
 * @return cudaSuccess, or cudaErrorInvalidValue for num_bins outside 1 to 2^30 or a null `bytes`
 */
template <class Sample, class Counter = unsigned>
cudaError_t histogram_workspace_bytes(cuda::std::size_t n, int num_bins, cuda::std::size_t* bytes);

/**
 * @brief Gives back to the current device the memory that the library's workspace pool keeps reserved between
 * calls (up to 576 MiB, after a call that allocated its own workspace): the pool is destroyed, and its memory
 * returns once the calls in flight that use it are done. Later calls make a new pool. Call it before
 * cudaDeviceReset, which destroys the pool under the library, and not while another host thread is inside a
 * histogram call.
 * @return cudaSuccess (also when no call has allocated a workspace), or the error of the current device's query
 */
inline cudaError_t histogram_release_workspace();

/**
 * @brief Histogram of `n` samples in `num_bins` even bins over `[lower, upper)`.
 * @param samples   device pointer, any alignment of its type
 * @param n         number of samples (0 is valid: the output is zeroed unless accumulating)
 * @param hist      device pointer to `num_bins` counters (unsigned, int, unsigned long long, long long, float, double)
 * @param num_bins  number of bins, 1 to 2^30
 * @param lower     lowest value counted (inclusive)
 * @param upper     end of the counted range (exclusive); must be above `lower`
 * @param stream    stream the work is ordered on
 * @param options   accumulate instead of overwrite, and where to count ignored samples
 * @return cudaSuccess, or cudaErrorInvalidValue with last_error_message() for bad arguments (nothing launched)
 */
template <class Sample, class Counter, class Level>
cudaError_t histogram_even(const Sample* samples, cuda::std::size_t n, Counter* hist, int num_bins, Level lower,
                           Level upper, cudaStream_t stream = nullptr, histogram_options options = {});

/// Histogram with bins between consecutive `levels` (device pointer, `num_levels` sorted values: 2 to 65536 for
/// samples wider than a byte).
template <class Sample, class Counter, class Level>
cudaError_t histogram_range(const Sample* samples, cuda::std::size_t n, Counter* hist, const Level* levels,
                            int num_levels, cudaStream_t stream = nullptr, histogram_options options = {});

/// Histogram with any binner: a callable `int(Sample)` usable on the device (negative = ignore).
template <class Sample, class Counter, class Binner>
cudaError_t histogram(const Sample* samples, cuda::std::size_t n, Counter* hist, int num_bins, Binner binner,
                      cudaStream_t stream = nullptr, histogram_options options = {});

/**
 * @brief Even histogram of a 2-D region of interest: `num_rows` rows of `num_row_samples` samples, rows
 * `row_stride_bytes` apart (>= a row).
 */
template <class Sample, class Counter, class Level>
cudaError_t histogram_even(const Sample* samples, cuda::std::size_t num_row_samples, cuda::std::size_t num_rows,
                           cuda::std::size_t row_stride_bytes, Counter* hist, int num_bins, Level lower, Level upper,
                           cudaStream_t stream = nullptr, histogram_options options = {});

/// Range histogram of a 2-D region of interest (see the even overload).
template <class Sample, class Counter, class Level>
cudaError_t histogram_range(const Sample* samples, cuda::std::size_t num_row_samples, cuda::std::size_t num_rows,
                            cuda::std::size_t row_stride_bytes, Counter* hist, const Level* levels, int num_levels,
                            cudaStream_t stream = nullptr, histogram_options options = {});

/**
 * @brief Histograms of `NumActiveChannels` of `NumChannels` interleaved channels (e.g. RGBA with 3 active):
 * `num_pixels * NumChannels` samples, channel `c` into `hist[c]` with its own even bins.
 */
template <int NumChannels, int NumActiveChannels, class Sample, class Counter, class Level>
cudaError_t multi_histogram_even(const Sample* samples, cuda::std::size_t num_pixels,
                                 Counter* const (&hist)[NumActiveChannels], const int (&num_bins)[NumActiveChannels],
                                 const Level (&lower)[NumActiveChannels], const Level (&upper)[NumActiveChannels],
                                 cudaStream_t stream = nullptr, histogram_options options = {});

/// Multi-channel range histograms: channel `c` uses `num_levels[c]` levels at `levels[c]` (device pointers).
template <int NumChannels, int NumActiveChannels, class Sample, class Counter, class Level>
cudaError_t multi_histogram_range(const Sample* samples, cuda::std::size_t num_pixels,
                                  Counter* const (&hist)[NumActiveChannels],
                                  const Level* const (&levels)[NumActiveChannels],
                                  const int (&num_levels)[NumActiveChannels], cudaStream_t stream = nullptr,
                                  histogram_options options = {});

/**
 * @brief Weighted even histogram: sample `i` adds `weights[i]` to its bin. The counter type must hold the weight
 * type (float weights into integer counters do not compile). Weights of the samples' size whose address agrees
 * with the samples' modulo 16 (e.g. two cudaMalloc'ed arrays) are read as 16-byte vectors beside the samples,
 * the fast case; other weights are read one by one.
 */
template <class Sample, class Weight, class Counter, class Level>
cudaError_t weighted_histogram_even(const Sample* samples, const Weight* weights, cuda::std::size_t n, Counter* hist,
                                    int num_bins, Level lower, Level upper, cudaStream_t stream = nullptr,
                                    histogram_options options = {});

/// Weighted range histogram.
template <class Sample, class Weight, class Counter, class Level>
cudaError_t weighted_histogram_range(const Sample* samples, const Weight* weights, cuda::std::size_t n,
                                     Counter* hist, const Level* levels, int num_levels,
                                     cudaStream_t stream = nullptr, histogram_options options = {});

/**
 * @brief One even histogram per segment, in one launch: segment `s` is `samples[segment_offsets[s],
 * segment_offsets[s + 1])` and its histogram `hist[s * num_bins, (s + 1) * num_bins)`. Empty segments get zeros.
 * @param samples          device pointer to the samples of every segment
 * @param segment_offsets  device pointer to `num_segments + 1` non-decreasing offsets
 * @param num_segments     number of segments
 * @param hist             device pointer to `num_segments * num_bins` counters
 * @param num_bins         bins per segment
 * @param lower            lowest value counted (inclusive)
 * @param upper            end of the counted range (exclusive)
 * @param stream           stream the work is ordered on
 * @param options          accumulate instead of overwrite, and where to count ignored samples
 */
template <class Sample, class Counter, class Level, class Offset>
cudaError_t segmented_histogram_even(const Sample* samples, const Offset* segment_offsets, int num_segments,
                                     Counter* hist, int num_bins, Level lower, Level upper,
                                     cudaStream_t stream = nullptr, histogram_options options = {});

}  // namespace onchip

#include <onchip/detail/histogram/binners_impl.cuh>
#include <onchip/detail/histogram/block_impl.cuh>
#include <onchip/detail/histogram/device_impl.cuh>
