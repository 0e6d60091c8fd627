// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief Device-wide histograms (even, range and custom binning; 2-D regions; interleaved channels; weights;
 * segments) that need no temporary storage for bins that fit on chip. Includes the binners (binning.cuh) and the
 * block-level primitive (block_histogram.cuh) they are built from.
 */
#pragma once

#include <onchip/binning.cuh>
#include <onchip/block_histogram.cuh>
#include <onchip/detail/config.cuh>
#include <onchip/detail/error.cuh>
#include <onchip/detail/histogram/options.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/type_traits>

#include <cuda_runtime_api.h>

namespace onchip {

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
 * @param hist      device pointer to `num_bins` counters (unsigned, int, unsigned long long, long long, float,
 * double)
 * @param num_bins  number of bins, 1 to 2^30
 * @param lower     lowest value counted (inclusive)
 * @param upper     end of the counted range (exclusive; inclusive with histogram_options::include_upper); must
 *                  be above `lower`
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
                           cuda::std::size_t row_stride_bytes, Counter* hist, int num_bins, Level lower,
                           Level upper, cudaStream_t stream = nullptr, histogram_options options = {});

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
                                 Counter* const (&hist)[NumActiveChannels],
                                 const int (&num_bins)[NumActiveChannels], const Level (&lower)[NumActiveChannels],
                                 const Level (&upper)[NumActiveChannels], cudaStream_t stream = nullptr,
                                 histogram_options options = {});

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
cudaError_t weighted_histogram_even(const Sample* samples, const Weight* weights, cuda::std::size_t n,
                                    Counter* hist, int num_bins, Level lower, Level upper,
                                    cudaStream_t stream = nullptr, histogram_options options = {});

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

#include <onchip/detail/histogram/histogram_impl.cuh>
