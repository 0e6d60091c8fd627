// The device-wide histogram: binner sets (staged in shared memory where they read levels), the shared-memory
// kernel (interleaved 32-bit replicas, or 16-bit counters for large bin counts; after a memset of the output: one
// kernel, no temporary storage), the global-atomic kernel for bin counts beyond shared memory, the byte kernels
// (bytes_impl.cuh), and the host-side validation and dispatch (which picks among them per call).
#pragma once

#include <onchip/detail/check.cuh>
#include <onchip/detail/error.cuh>
#include <onchip/detail/histogram/block_impl.cuh>
#include <onchip/histogram.cuh>
#include <onchip/load.cuh>
#include <onchip/smem.cuh>

#include <cuda/std/cstdint>
#include <cuda/std/type_traits>

#include <cuda_runtime_api.h>

#include <cmath>
#include <string>

namespace onchip::detail {

// ---------------------------------------------------------------------------------------------------------------
// Binner sets: one binner per active channel. take() carves what the binners stage in shared memory (nothing for
// even or custom binners), stage() fills it and returns binners that read it.
// ---------------------------------------------------------------------------------------------------------------

struct no_staging {};

template <int Active, class Binner>
struct plain_binners {
  Binner binner[Active];
  int bins[Active];
  ONCHIP_HOST_DEVICE no_staging take(carver&) const { return {}; }
#if defined(__CUDACC__)
  ONCHIP_DEVICE plain_binners stage(no_staging) const { return *this; }
#endif
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE const Binner& operator[](int c) const { return binner[c]; }
  /// Channel c's binner without staging (the byte kernel bins each value once, at the end).
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE Binner unstaged(int c) const { return binner[c]; }
};

template <int Active, class Level>
struct level_spans {
  Level* levels[Active];
};

template <int Active, class Level>
struct range_binners {
  const Level* levels[Active];  // device memory
  int bins[Active];             // num_levels - 1

  ONCHIP_HOST_DEVICE level_spans<Active, Level> take(carver& c) const {
    level_spans<Active, Level> s{};
    for (int a = 0; a < Active; ++a) { s.levels[a] = c.take<Level>(static_cast<cuda::std::size_t>(bins[a]) + 1).data(); }
    return s;
  }

  /// Channel c's binner reading the levels in device memory (the byte kernel bins each value once, at the end).
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE bin_range<Level> unstaged(int c) const { return {levels[c], bins[c] + 1}; }

  struct staged {
    bin_range<Level> binner[Active];
    ONCHIP_DEVICE ONCHIP_FORCEINLINE const bin_range<Level>& operator[](int c) const { return binner[c]; }
  };

#if defined(__CUDACC__)
  ONCHIP_DEVICE staged stage(const level_spans<Active, Level>& s) const {
    for (int a = 0; a < Active; ++a) {
      for (int i = block_rank(); i <= bins[a]; i += block_size()) { s.levels[a][i] = levels[a][i]; }
    }
    __syncthreads();
#  if ONCHIP_CHECKS
    if (blockIdx.x == 0 && block_rank() == 0) {
      for (int a = 0; a < Active; ++a) {
        for (int i = 0; i < bins[a]; ++i) {
          if (!(s.levels[a][i] < s.levels[a][i + 1])) {
            printf("onchip::histogram_range: levels must be sorted ascending, but level %d is not below level %d "
                   "(channel %d)\n",
                   i, i + 1, a);
            fail_check(true);
          }
        }
      }
    }
#  endif
    staged out{};
    for (int a = 0; a < Active; ++a) { out.binner[a] = bin_range<Level>(s.levels[a], bins[a] + 1); }
    return out;
  }
#endif
};

template <class Binners>
inline constexpr bool is_range_binners_v = false;
template <int Active, class Level>
inline constexpr bool is_range_binners_v<range_binners<Active, Level>> = true;

// ---------------------------------------------------------------------------------------------------------------
// The input: rows of samples (one row for 1-D input), interleaved channels, optional weights.
// ---------------------------------------------------------------------------------------------------------------

struct no_weights {};

template <int Channels, int Active, class Sample, class Weight, class Binners, class Counter>
struct histogram_job {
  const Sample* samples;
  cuda::std::size_t row_samples;  // samples per row (pixels * Channels)
  cuda::std::size_t rows;
  cuda::std::size_t row_stride;   // bytes
  const Weight* weights;          // one per sample (1-D input only), or null
  Binners binners;
  int offset[Active + 1];         // channel a's bins are [offset[a], offset[a + 1]) of the merged histogram
  Counter* hist[Active];

  ONCHIP_HOST_DEVICE int total_bins() const { return offset[Active]; }
};

inline constexpr int smem_histogram_threads = 512;  // three blocks to an SM

#if defined(__CUDACC__)
/// Atomic add without return into the shared-window address `addr` (one RED, no generic-to-shared conversion).
template <class C>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void shared_red(unsigned addr, C v) {
  if constexpr (cuda::std::is_same_v<C, unsigned> || cuda::std::is_same_v<C, int>) {
    asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(addr), "r"(static_cast<unsigned>(v)) : "memory");
  } else if constexpr (cuda::std::is_same_v<C, unsigned long long> || cuda::std::is_same_v<C, long long>) {
    asm volatile("red.shared.add.u64 [%0], %1;" ::"r"(addr), "l"(static_cast<unsigned long long>(v)) : "memory");
  } else if constexpr (cuda::std::is_same_v<C, float>) {
    asm volatile("red.shared.add.f32 [%0], %1;" ::"r"(addr), "f"(v) : "memory");
  } else {
    static_assert(cuda::std::is_same_v<C, double>, "shared_red: unsupported counter type");
    asm volatile("red.shared.add.f64 [%0], %1;" ::"r"(addr), "d"(v) : "memory");
  }
}

template <class F, int... I>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void with_channel_impl(int c, F& f, cuda::std::integer_sequence<int, I...>) {
  ((c == I ? f(cuda::std::integral_constant<int, I>{}) : void()), ...);
}

/// Calls f(integral_constant<int, c>) for a run-time channel c < A, so that per-channel arrays are indexed with
/// constants (a run-time index would put them in local memory).
template <int A, class F>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void with_channel(int c, F&& f) {
  if constexpr (A == 1) {
    f(cuda::std::integral_constant<int, 0>{});
  } else {
    with_channel_impl(c, f, cuda::std::make_integer_sequence<int, A>{});
  }
}

/// Whether every sample of a 16-byte vector holds the same bits.
template <class T>
ONCHIP_DEVICE ONCHIP_FORCEINLINE bool vector_is_constant(const uint4& w) {
  if constexpr (sizeof(T) == 8) {
    return w.x == w.z && w.y == w.w;
  } else {
    bool same = w.x == w.y && w.x == w.z && w.x == w.w;
    if constexpr (sizeof(T) == 1) { same = same && w.x == __byte_perm(w.x, 0, 0x0000); }
    if constexpr (sizeof(T) == 2) { same = same && w.x == __byte_perm(w.x, 0, 0x1010); }
    return same;
  }
}

// Calls add(channel, bin, valid, weight) for each sample of the job (channel as an integral_constant, bin within
// the channel, valid = whether it falls in a bin; kernels add invalid samples to a spare counter so that no branch
// is taken per sample); returns how many fell in no bin. Unweighted one-channel input takes a shortcut for
// vectors that hold one value (degenerate data): one add of the vector's count instead of one per sample.
template <class Job, class Staged, class Add>
ONCHIP_DEVICE ONCHIP_FORCEINLINE unsigned long long visit_samples(const Job job, const Staged binners, Add& add,
                                                                  bool whole_grid) {
  using sample_t = cuda::std::remove_cv_t<cuda::std::remove_pointer_t<decltype(job.samples)>>;
  constexpr int C = Job::channels, A = Job::active;
  constexpr bool unweighted = cuda::std::is_same_v<typename Job::weight_t, no_weights>;
  constexpr int per_vector = items_per_16b<sample_t>;
  constexpr int in_flight = sizeof(sample_t) >= 4 ? 4 : 2;  // 16-byte vectors per thread per round
  unsigned long long ignored = 0;
  // Counts one sample (or `weight` equal unweighted samples); returns 1 (or `weight`) if it fell in no bin.
  auto count = [&](auto ch, sample_t v, auto weight) -> unsigned {
    constexpr int a = decltype(ch)::value;
    const int bin = binners[a](v);
    const bool valid = static_cast<unsigned>(bin) < static_cast<unsigned>(job.offset[a + 1] - job.offset[a]);
    add(ch, bin, valid, weight);
    return valid ? 0u : (unweighted ? static_cast<unsigned>(weight) : 1u);
  };
  auto visit = [&](sample_t v, cuda::std::size_t i, cuda::std::size_t row) -> unsigned {
    const int c = C == 1 ? 0 : static_cast<int>(i % C);
    unsigned missed = 0;
    if (c < A) {
      with_channel<A>(c, [&](auto ch) {
        if constexpr (unweighted) {
          missed = count(ch, v, 1u);
        } else {
          missed = count(ch, v, job.weights[row * job.row_samples + i]);
        }
      });
    }
    return missed;
  };
  auto row_ptr = [&](cuda::std::size_t r) {
    return reinterpret_cast<const sample_t*>(reinterpret_cast<const unsigned char*>(job.samples) + r * job.row_stride);
  };
  auto on_vector_of = [&](cuda::std::size_t r) {
    return [&, r](const vec<sample_t, (per_vector > 0 ? per_vector : 1)>& items, cuda::std::size_t i) {
      if constexpr (unweighted && C == 1 && per_vector > 1) {
        if (vector_is_constant<sample_t>(reinterpret_cast<const uint4&>(items))) {
          ignored += count(cuda::std::integral_constant<int, 0>{}, items[0], static_cast<unsigned>(per_vector));
          return;
        }
      }
      unsigned missed = 0;
#  pragma unroll
      for (int k = 0; k < (per_vector > 0 ? per_vector : 1); ++k) { missed += visit(items[k], i + k, r); }
      ignored += missed;
    };
  };
  if (whole_grid) {  // long rows: the whole grid on each row
    for (cuda::std::size_t r = 0; r < job.rows; ++r) {
      onchip::grid_for_each_vec<in_flight>(row_ptr(r), job.row_samples, on_vector_of(r),
                                   [&](sample_t v, cuda::std::size_t i) { ignored += visit(v, i, r); });
    }
  } else {  // many short rows: one block per row
    for (cuda::std::size_t r = blockIdx.x; r < job.rows; r += gridDim.x) {
      onchip::block_for_each_vec<in_flight>(row_ptr(r), job.row_samples, on_vector_of(r),
                                    [&](sample_t v, cuda::std::size_t i) { ignored += visit(v, i, r); });
    }
  }
  return ignored;
}

ONCHIP_DEVICE ONCHIP_FORCEINLINE void add_ignored(unsigned long long count, unsigned long long* total) {
  if (total == nullptr) { return; }
  for (int o = 16; o > 0; o /= 2) { count += __shfl_down_sync(0xffffffffu, count, o); }
  if (threadIdx.x % 32 == 0 && count != 0) { atomicAdd(total, count); }
}

/// Adds `sum` to merged bin `b` of the job's output (its channel found with constant indices).
template <class Counter, class Job, class Sum>
ONCHIP_DEVICE ONCHIP_FORCEINLINE void add_to_output(const Job& job, int b, Sum sum) {
#  pragma unroll
  for (int a = 0; a < Job::active; ++a) {
    if (b >= job.offset[a] && b < job.offset[a + 1]) {
      atomic_add<false>(job.hist[a] + (b - job.offset[a]), static_cast<Counter>(sum));
    }
  }
}
#endif  // __CUDACC__

template <class SmemCounter, class Job>
struct kernel_plan {
  Job job;
  int replicas;  // interleaved copies, lane l on copy l % replicas
  ONCHIP_HOST_DEVICE auto operator()(carver& c) const {
    auto staging = job.binners.take(c);
    // replicas copies of the bins, then one spare counter per replica for samples in no bin
    auto counters = c.take<smem_word_t<SmemCounter>>(static_cast<cuda::std::size_t>(replicas) *
                                                     (smem_words<SmemCounter>(job.total_bins()) + 1));
    return cuda::std::tuple{staging, counters.data()};
  }
};

#if defined(__CUDACC__)
// The shared-memory path: privatized replicas, then one atomic per non-zero bin per block. With 32-bit counters
// (SmemCounter = Counter) the `replicas` copies (a power of two up to 32) are interleaved: bin b of replica r is
// word b * replicas + r and lane l uses replica l % replicas, so with 32 replicas every lane of a warp owns a bank
// and no two lanes ever add to one word (none of the serialization of skewed data, none of the bank conflicts of
// uniform data). SmemCounter = uint16_t packs two counters per word in one copy (bins beyond 32-bit shared
// counters; carries go straight to the output).
template <class Counter, class SmemCounter, int Threads, class Job>
__global__ void __launch_bounds__(Threads, Threads == smem_histogram_threads ? 2 : 1)
    smem_histogram_kernel(Job job, int replicas, bool whole_grid, unsigned long long* ignored_total) {
  auto [staging, carved] = onchip::carve(kernel_plan<SmemCounter, Job>{job, replicas});
  smem_word_t<SmemCounter>* const counters = carved;  // a variable the lambdas below can capture (C++17)
  const int bins = job.total_bins();
  const int stride = smem_words<SmemCounter>(bins);
  for (int i = threadIdx.x; i < replicas * (stride + 1); i += Threads) { counters[i] = smem_word_t<SmemCounter>(0); }
  const auto binners = job.binners.stage(staging);  // synchronizes the block
  __syncthreads();
  const unsigned slot = (threadIdx.x % 32) & static_cast<unsigned>(replicas - 1);
  // This lane's spare counter, then the stride of one bin, as shared-window byte addresses.
  const unsigned spare = static_cast<unsigned>(__cvta_generic_to_shared(counters + replicas * stride + slot));
  const unsigned bin_bytes = static_cast<unsigned>(replicas * sizeof(smem_word_t<SmemCounter>));
  const unsigned first = spare - static_cast<unsigned>(replicas * stride) * sizeof(smem_word_t<SmemCounter>);
  unsigned* carry = nullptr;
  if constexpr (is_packed16_v<SmemCounter>) { carry = reinterpret_cast<unsigned*>(job.hist[0]); }
  auto add = [&](auto ch, int bin, bool valid, auto weight) {
    const int b = job.offset[decltype(ch)::value] + bin;
    if constexpr (is_packed16_v<SmemCounter>) {
      if (valid) { smem_add<SmemCounter>(counters, b, weight, carry, bins); }
    } else {  // no branch: samples in no bin go to the spare counter
      shared_red(valid ? first + static_cast<unsigned>(b) * bin_bytes : spare, static_cast<Counter>(weight));
    }
  };
  add_ignored(visit_samples(job, binners, add, whole_grid), ignored_total);
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += Threads) {
    if constexpr (is_packed16_v<SmemCounter>) {
      const auto sum = merged<SmemCounter>(counters, b, 1, stride);
      if (sum != 0) { add_to_output<Counter>(job, b, sum); }
    } else {
      Counter sum = 0;
      for (int r = 0; r < replicas; ++r) { sum += counters[b * replicas + r]; }
      if (sum != Counter(0)) { add_to_output<Counter>(job, b, sum); }
    }
  }
}

// Bin counts beyond shared memory: atomics straight into the output, no temporary memory at all.
template <class Counter, class Job>
__global__ void __launch_bounds__(256, 1) global_histogram_kernel(Job job, bool whole_grid,
                                                               unsigned long long* ignored_total) {
  auto [staging, unused] = onchip::carve(kernel_plan<Counter, Job>{job, 0});
  static_cast<void>(unused);
  const auto binners = job.binners.stage(staging);
  auto add = [&](auto ch, int bin, bool valid, auto weight) {
    if (valid) { atomic_add<false>(job.hist[decltype(ch)::value] + bin, static_cast<Counter>(weight)); }
  };
  add_ignored(visit_samples(job, binners, add, whole_grid), ignored_total);
}
#endif  // __CUDACC__

}  // namespace onchip::detail

#include <onchip/detail/histogram/bytes_impl.cuh>

namespace onchip::detail {

// ---------------------------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------------------------

template <class Counter>
inline constexpr bool device_counter_v =
    cuda::std::is_same_v<Counter, unsigned> || cuda::std::is_same_v<Counter, int> ||
    cuda::std::is_same_v<Counter, unsigned long long> || cuda::std::is_same_v<Counter, long long> ||
    cuda::std::is_same_v<Counter, float> || cuda::std::is_same_v<Counter, double>;

template <class Counter>
constexpr void check_device_counter() {
  static_assert(device_counter_v<Counter>,
                "onchip histogram: the histogram's counters must be unsigned int, int, unsigned long long, long "
                "long, float or double");
}

template <class Sample>
constexpr void check_sample() {
  using X = arithmetic_t<Sample>;
  static_assert(cuda::std::is_arithmetic_v<X>,
                "onchip histogram: samples must be arithmetic types, __half or __nv_bfloat16");
}

inline cudaError_t invalid(const char* who, const std::string& why) {
  return fail(cudaErrorInvalidValue, std::string(who) + ": " + why);
}

struct launch_shape {
  int grid;
  int threads;
  int replicas;
  cuda::std::size_t smem;
  bool shared;  // shared-memory path (else global atomics)
};

#ifndef ONCHIP_DETAIL_BYTE_KERNELS
#  define ONCHIP_DETAIL_BYTE_KERNELS 1  // 0 sends bytes down the general path (for benchmarks comparing the two)
#endif
inline constexpr int histogram_threads = 256;  // global and segmented kernels

// Zeroes the outputs unless accumulating.
template <int Active, class Counter>
cudaError_t clear_outputs(Counter* const (&hist)[Active], const int (&bins)[Active], bool accumulate,
                          cudaStream_t stream, const char* who) {
  if (accumulate) { return cudaSuccess; }
  for (int a = 0; a < Active; ++a) {
    if (cudaError_t e = cuda_call(cudaMemsetAsync(hist[a], 0, static_cast<cuda::std::size_t>(bins[a]) * sizeof(Counter),
                                                  stream),
                                  who);
        e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
}

#if defined(__CUDACC__)
template <class Counter, class Job>
cudaError_t launch_job(const Job& job, cuda::std::size_t samples_total, cudaStream_t stream,
                       const histogram_options& options, const char* who) {
  Counter* hist[Job::active];
  int bins[Job::active];
  for (int a = 0; a < Job::active; ++a) {
    hist[a] = job.hist[a];
    bins[a] = job.offset[a + 1] - job.offset[a];
  }
  if (cudaError_t e = clear_outputs<Job::active>(hist, bins, options.accumulate, stream, who); e != cudaSuccess) {
    return e;
  }
  if (samples_total == 0) { return succeed(); }
  int device = 0, sms = 0, optin = 0;
  if (cudaError_t e = cuda_call(cudaGetDevice(&device), who); e != cudaSuccess) { return e; }
  if (cudaError_t e = cuda_call(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), who);
      e != cudaSuccess) {
    return e;
  }
  if (cudaError_t e = cuda_call(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), who);
      e != cudaSuccess) {
    return e;
  }
  const int threads = histogram_threads;
  const bool whole_grid = job.rows == 1 || job.row_samples >= static_cast<cuda::std::size_t>(sms) * threads * 4;
  // Launches `kernel` on every SM, as many blocks per SM as fit.
  auto launch = [&](auto* kernel, int block, cuda::std::size_t bytes, const char* what, auto... args) {
    if (cudaError_t e = prepare_dynamic_smem(kernel, bytes); e != cudaSuccess) { return e; }
    int per_sm = 0;
    if (cudaError_t e = blocks_per_sm(&per_sm, kernel, block, bytes); e != cudaSuccess) { return e; }
    if (per_sm < 1) { return invalid(who, std::string("the ") + what + " cannot be resident on this device"); }
    kernel<<<sms * per_sm, block, bytes, stream>>>(job, args..., whole_grid, options.ignored);
    return cuda_call(cudaGetLastError(), who);
  };
  cudaError_t launched = cudaSuccess;
  if constexpr (byte_job_v<Job> && ONCHIP_DETAIL_BYTE_KERNELS) {  // count byte values, bin them once per block
    if constexpr (Job::channels == 1) {
      launched = launch(byte_columns_kernel<Counter, Job>, byte_column_threads, smem_bytes(byte_columns_plan{}),
                        "byte histogram kernel");
    } else {
      int replicas = 32;
      while (replicas > 1 && smem_bytes(byte_replicas_plan<Job::active>{replicas}) > 72 * 1024) { replicas /= 2; }
      launched = launch(byte_replicas_kernel<Counter, Job>, byte_threads,
                        smem_bytes(byte_replicas_plan<Job::active>{replicas}), "byte histogram kernel", replicas);
    }
  } else {
    // Shared-memory path while one replica (plus staged levels) fits the opt-in limit, with as many interleaved
    // replicas as keep three blocks on an SM. Beyond that, one-channel unweighted 32-bit counts keep 16-bit
    // counters in shared memory (carrying into the output), one block per SM; else global atomics.
    const auto fits = [&](cuda::std::size_t bytes) { return bytes + 1024 <= static_cast<cuda::std::size_t>(optin); };
    constexpr bool packable = Job::active == 1 && cuda::std::is_same_v<typename Job::weight_t, no_weights> &&
                              (cuda::std::is_same_v<Counter, unsigned> || cuda::std::is_same_v<Counter, int>);
    bool done = false;
    if (fits(smem_bytes(kernel_plan<Counter, Job>{job, 1}))) {
      // As many interleaved replicas (up to one per lane) as keep three blocks on an SM.
      int replicas = 32;
      while (replicas > 1 && smem_bytes(kernel_plan<Counter, Job>{job, replicas}) > 72 * 1024) { replicas /= 2; }
      launched = launch(smem_histogram_kernel<Counter, Counter, smem_histogram_threads, Job>, smem_histogram_threads,
                        smem_bytes(kernel_plan<Counter, Job>{job, replicas}), "shared-memory histogram kernel",
                        replicas);
      done = true;
    }
    if constexpr (packable) {
      using packed_t = cuda::std::uint16_t;
      if (!done && fits(smem_bytes(kernel_plan<packed_t, Job>{job, 1}))) {
        // 1024 threads hide the latency of the returning atomics where registers allow (range binners and 8-byte
        // samples need more)
        constexpr int packed_threads = is_range_binners_v<typename Job::binners_t> ? 256
                                       : sizeof(job_sample_t<Job>) <= 4           ? 1024
                                                                                  : 512;
        launched = launch(smem_histogram_kernel<Counter, packed_t, packed_threads, Job>, packed_threads,
                          smem_bytes(kernel_plan<packed_t, Job>{job, 1}), "shared-memory histogram kernel", 1);
        done = true;
      }
    }
    if (!done) {
      launched = launch(global_histogram_kernel<Counter, Job>, threads, smem_bytes(kernel_plan<Counter, Job>{job, 0}),
                        "histogram kernel");
    }
  }
  if (launched != cudaSuccess) { return launched; }
  return succeed();
}
#endif

template <class Level>
bool level_is_nan(Level x) {
  if constexpr (cuda::std::is_floating_point_v<Level>) {
    return std::isnan(x);
  } else {
    return false;
  }
}

template <class Level>
std::string level_text(Level x) {
  if constexpr (cuda::std::is_floating_point_v<Level>) {
    return std::to_string(static_cast<double>(x));
  } else if constexpr (cuda::std::is_signed_v<Level>) {
    return std::to_string(static_cast<long long>(x));
  } else {
    return std::to_string(static_cast<unsigned long long>(x));
  }
}

template <class Level>
cudaError_t check_even(const char* who, int num_bins, Level lower, Level upper) {
  if (num_bins < 1) { return invalid(who, "num_bins must be at least 1, got " + std::to_string(num_bins)); }
  if (level_is_nan(lower) || level_is_nan(upper)) { return invalid(who, "lower and upper must not be NaN"); }
  if (!bin_even<Level>(lower, upper, num_bins).valid()) {
    return invalid(who, "lower (" + level_text(lower) + ") must be below upper (" + level_text(upper) + ")");
  }
  return cudaSuccess;
}

inline cudaError_t check_pointers(const char* who, const void* samples, cuda::std::size_t count, const void* hist) {
  if (hist == nullptr) { return invalid(who, "the histogram pointer is null"); }
  if (samples == nullptr && count > 0) {
    return invalid(who, "the samples pointer is null but " + std::to_string(count) + " samples were given");
  }
  return cudaSuccess;
}

inline cudaError_t check_rows(const char* who, cuda::std::size_t row_bytes, cuda::std::size_t rows,
                              cuda::std::size_t row_stride_bytes) {
  if (rows > 1 && row_stride_bytes < row_bytes) {
    return invalid(who, "row_stride_bytes (" + std::to_string(row_stride_bytes) + ") is smaller than a row (" +
                            std::to_string(row_bytes) + " bytes)");
  }
  return cudaSuccess;
}

inline cudaError_t check_levels(const char* who, const void* levels, int num_levels) {
  if (num_levels < 2) { return invalid(who, "num_levels must be at least 2, got " + std::to_string(num_levels)); }
  if (levels == nullptr) { return invalid(who, "the levels pointer is null"); }
  return cudaSuccess;
}

inline cudaError_t check_bins_total(const char* who, long long total) {
  if (total > (1ll << 30)) {
    return invalid(who, "at most 2^30 bins in total are supported, got " + std::to_string(total));
  }
  return cudaSuccess;
}

template <int Channels, int Active, class Sample, class Weight, class Binners, class Counter>
struct job_of : histogram_job<Channels, Active, Sample, Weight, Binners, Counter> {
  static constexpr int channels = Channels;
  static constexpr int active = Active;
  using weight_t = Weight;
  using binners_t = Binners;
};

}  // namespace onchip::detail

#if defined(__CUDACC__)
namespace onchip {

namespace detail {
// Builds and launches a job over rows of samples with one binner set.
template <int Channels, int Active, class Sample, class Weight, class Binners, class Counter>
cudaError_t run_histogram(const char* who, const Sample* samples, cuda::std::size_t row_samples,
                          cuda::std::size_t rows, cuda::std::size_t row_stride, const Weight* weights,
                          const Binners& binners, Counter* const (&hist)[Active], cudaStream_t stream,
                          const histogram_options& options) {
  check_device_counter<Counter>();
  check_sample<Sample>();
  job_of<Channels, Active, Sample, Weight, Binners, Counter> job{
      {samples, row_samples, rows, row_stride, weights, binners, {}, {}}};
  long long total = 0;
  for (int a = 0; a < Active; ++a) {
    total += binners.bins[a];
    job.hist[a] = hist[a];
  }
  if (cudaError_t e = check_bins_total(who, total); e != cudaSuccess) { return e; }
  for (int a = 0; a < Active; ++a) { job.offset[a + 1] = job.offset[a] + binners.bins[a]; }
  return launch_job<Counter>(job, row_samples * rows, stream, options, who);
}

// Even binning: integer samples and levels within the narrow tiers use narrow_even (smaller, faster kernels).
template <int Channels, int Active, class Sample, class Weight, class Level, class Counter>
cudaError_t run_even(const char* who, const Sample* samples, cuda::std::size_t row_samples, cuda::std::size_t rows,
                     cuda::std::size_t row_stride, const Weight* weights,
                     const plain_binners<Active, bin_even<Level>>& binners, Counter* const (&hist)[Active],
                     cudaStream_t stream, const histogram_options& options) {
  if constexpr (cuda::std::is_integral_v<arithmetic_t<Sample>> && cuda::std::is_integral_v<Level>) {
    bool narrow = true;
    for (int a = 0; a < Active; ++a) { narrow = narrow && narrow_even<Level>::applies(binners.binner[a]); }
    if (narrow) {
      plain_binners<Active, narrow_even<Level>> n{};
      for (int a = 0; a < Active; ++a) {
        n.binner[a] = narrow_even<Level>{binners.binner[a]};
        n.bins[a] = binners.bins[a];
      }
      return run_histogram<Channels, Active>(who, samples, row_samples, rows, row_stride, weights, n, hist, stream,
                                             options);
    }
  }
  return run_histogram<Channels, Active>(who, samples, row_samples, rows, row_stride, weights, binners, hist, stream,
                                         options);
}
}  // namespace detail

template <class Sample, class Counter, class Level>
cudaError_t histogram_even(const Sample* samples, cuda::std::size_t n, Counter* hist, int num_bins, Level lower,
                           Level upper, cudaStream_t stream, histogram_options options) {
  return histogram_even(samples, n, 1, n * sizeof(Sample), hist, num_bins, lower, upper, stream, options);
}

template <class Sample, class Counter, class Level>
cudaError_t histogram_even(const Sample* samples, cuda::std::size_t num_row_samples, cuda::std::size_t num_rows,
                           cuda::std::size_t row_stride_bytes, Counter* hist, int num_bins, Level lower, Level upper,
                           cudaStream_t stream, histogram_options options) {
  constexpr const char* who = "onchip::histogram_even";
  if (cudaError_t e = detail::check_even(who, num_bins, lower, upper); e != cudaSuccess) { return e; }
  if (cudaError_t e = detail::check_pointers(who, samples, num_row_samples * num_rows, hist); e != cudaSuccess) {
    return e;
  }
  if (cudaError_t e = detail::check_rows(who, num_row_samples * sizeof(Sample), num_rows, row_stride_bytes);
      e != cudaSuccess) {
    return e;
  }
  detail::plain_binners<1, bin_even<Level>> binners{{bin_even<Level>(lower, upper, num_bins)}, {num_bins}};
  Counter* const out[1] = {hist};
  return detail::run_even<1, 1>(who, samples, num_row_samples, num_rows, row_stride_bytes,
                                     static_cast<const detail::no_weights*>(nullptr), binners, out, stream, options);
}

template <class Sample, class Counter, class Level>
cudaError_t histogram_range(const Sample* samples, cuda::std::size_t n, Counter* hist, const Level* levels,
                            int num_levels, cudaStream_t stream, histogram_options options) {
  return histogram_range(samples, n, 1, n * sizeof(Sample), hist, levels, num_levels, stream, options);
}

template <class Sample, class Counter, class Level>
cudaError_t histogram_range(const Sample* samples, cuda::std::size_t num_row_samples, cuda::std::size_t num_rows,
                            cuda::std::size_t row_stride_bytes, Counter* hist, const Level* levels, int num_levels,
                            cudaStream_t stream, histogram_options options) {
  constexpr const char* who = "onchip::histogram_range";
  if (cudaError_t e = detail::check_levels(who, levels, num_levels); e != cudaSuccess) { return e; }
  if (cudaError_t e = detail::check_pointers(who, samples, num_row_samples * num_rows, hist); e != cudaSuccess) {
    return e;
  }
  if (cudaError_t e = detail::check_rows(who, num_row_samples * sizeof(Sample), num_rows, row_stride_bytes);
      e != cudaSuccess) {
    return e;
  }
  detail::range_binners<1, Level> binners{{levels}, {num_levels - 1}};
  Counter* const out[1] = {hist};
  return detail::run_histogram<1, 1>(who, samples, num_row_samples, num_rows, row_stride_bytes,
                                     static_cast<const detail::no_weights*>(nullptr), binners, out, stream, options);
}

template <class Sample, class Counter, class Binner>
cudaError_t histogram(const Sample* samples, cuda::std::size_t n, Counter* hist, int num_bins, Binner binner,
                      cudaStream_t stream, histogram_options options) {
  constexpr const char* who = "onchip::histogram";
  if (num_bins < 1) { return detail::invalid(who, "num_bins must be at least 1, got " + std::to_string(num_bins)); }
  if (cudaError_t e = detail::check_pointers(who, samples, n, hist); e != cudaSuccess) { return e; }
  detail::plain_binners<1, Binner> binners{{binner}, {num_bins}};
  Counter* const out[1] = {hist};
  return detail::run_histogram<1, 1>(who, samples, n, 1, n * sizeof(Sample),
                                     static_cast<const detail::no_weights*>(nullptr), binners, out, stream, options);
}

template <int NumChannels, int NumActiveChannels, class Sample, class Counter, class Level>
cudaError_t multi_histogram_even(const Sample* samples, cuda::std::size_t num_pixels,
                                 Counter* const (&hist)[NumActiveChannels], const int (&num_bins)[NumActiveChannels],
                                 const Level (&lower)[NumActiveChannels], const Level (&upper)[NumActiveChannels],
                                 cudaStream_t stream, histogram_options options) {
  static_assert(NumChannels >= 1 && NumChannels <= 4, "onchip::multi_histogram_even: 1 to 4 channels");
  static_assert(NumActiveChannels >= 1 && NumActiveChannels <= NumChannels,
                "onchip::multi_histogram_even: 1 to NumChannels active channels");
  constexpr const char* who = "onchip::multi_histogram_even";
  detail::plain_binners<NumActiveChannels, bin_even<Level>> binners{};
  for (int a = 0; a < NumActiveChannels; ++a) {
    if (cudaError_t e = detail::check_even(who, num_bins[a], lower[a], upper[a]); e != cudaSuccess) { return e; }
    if (cudaError_t e = detail::check_pointers(who, samples, num_pixels, hist[a]); e != cudaSuccess) { return e; }
    binners.binner[a] = bin_even<Level>(lower[a], upper[a], num_bins[a]);
    binners.bins[a] = num_bins[a];
  }
  const cuda::std::size_t n = num_pixels * NumChannels;
  return detail::run_even<NumChannels, NumActiveChannels>(
      who, samples, n, 1, n * sizeof(Sample), static_cast<const detail::no_weights*>(nullptr), binners, hist, stream,
      options);
}

template <int NumChannels, int NumActiveChannels, class Sample, class Counter, class Level>
cudaError_t multi_histogram_range(const Sample* samples, cuda::std::size_t num_pixels,
                                  Counter* const (&hist)[NumActiveChannels],
                                  const Level* const (&levels)[NumActiveChannels],
                                  const int (&num_levels)[NumActiveChannels], cudaStream_t stream,
                                  histogram_options options) {
  static_assert(NumChannels >= 1 && NumChannels <= 4, "onchip::multi_histogram_range: 1 to 4 channels");
  static_assert(NumActiveChannels >= 1 && NumActiveChannels <= NumChannels,
                "onchip::multi_histogram_range: 1 to NumChannels active channels");
  constexpr const char* who = "onchip::multi_histogram_range";
  detail::range_binners<NumActiveChannels, Level> binners{};
  for (int a = 0; a < NumActiveChannels; ++a) {
    if (cudaError_t e = detail::check_levels(who, levels[a], num_levels[a]); e != cudaSuccess) { return e; }
    if (cudaError_t e = detail::check_pointers(who, samples, num_pixels, hist[a]); e != cudaSuccess) { return e; }
    binners.levels[a] = levels[a];
    binners.bins[a] = num_levels[a] - 1;
  }
  const cuda::std::size_t n = num_pixels * NumChannels;
  return detail::run_histogram<NumChannels, NumActiveChannels>(
      who, samples, n, 1, n * sizeof(Sample), static_cast<const detail::no_weights*>(nullptr), binners, hist, stream,
      options);
}

template <class Sample, class Weight, class Counter, class Level>
cudaError_t weighted_histogram_even(const Sample* samples, const Weight* weights, cuda::std::size_t n, Counter* hist,
                                    int num_bins, Level lower, Level upper, cudaStream_t stream,
                                    histogram_options options) {
  static_assert(detail::counter_holds_v<Counter, Weight>,
                "onchip::weighted_histogram_even: the counter type cannot hold the weight type (e.g. float weights "
                "need float or double counters)");
  constexpr const char* who = "onchip::weighted_histogram_even";
  if (cudaError_t e = detail::check_even(who, num_bins, lower, upper); e != cudaSuccess) { return e; }
  if (cudaError_t e = detail::check_pointers(who, samples, n, hist); e != cudaSuccess) { return e; }
  if (weights == nullptr && n > 0) { return detail::invalid(who, "the weights pointer is null"); }
  detail::plain_binners<1, bin_even<Level>> binners{{bin_even<Level>(lower, upper, num_bins)}, {num_bins}};
  Counter* const out[1] = {hist};
  return detail::run_even<1, 1>(who, samples, n, 1, n * sizeof(Sample), weights, binners, out, stream, options);
}

template <class Sample, class Weight, class Counter, class Level>
cudaError_t weighted_histogram_range(const Sample* samples, const Weight* weights, cuda::std::size_t n,
                                     Counter* hist, const Level* levels, int num_levels, cudaStream_t stream,
                                     histogram_options options) {
  static_assert(detail::counter_holds_v<Counter, Weight>,
                "onchip::weighted_histogram_range: the counter type cannot hold the weight type (e.g. float weights "
                "need float or double counters)");
  constexpr const char* who = "onchip::weighted_histogram_range";
  if (cudaError_t e = detail::check_levels(who, levels, num_levels); e != cudaSuccess) { return e; }
  if (cudaError_t e = detail::check_pointers(who, samples, n, hist); e != cudaSuccess) { return e; }
  if (weights == nullptr && n > 0) { return detail::invalid(who, "the weights pointer is null"); }
  detail::range_binners<1, Level> binners{{levels}, {num_levels - 1}};
  Counter* const out[1] = {hist};
  return detail::run_histogram<1, 1>(who, samples, n, 1, n * sizeof(Sample), weights, binners, out, stream, options);
}

}  // namespace onchip
#endif  // __CUDACC__

#include <onchip/detail/histogram/segmented_impl.cuh>
