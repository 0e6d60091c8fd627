// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief Shared-memory carving: one typed plan gives the host its launch size and the device its arrays.
 *
 * A *plan* is any callable `(onchip::carver&) -> Result` written once, for example
 * @code
 * struct my_plan {
 *   int n;  // runtime extent
 *   ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
 *     auto keys  = c.take<short>(n);
 *     auto vals  = c.take<float, 256>();
 *     auto tiles = c.take_aligned<128, float4>(n / 4);
 *     return cuda::std::tuple{keys, vals, tiles};
 *   }
 * };
 * // host:   kernel<<<grid, block, onchip::smem_bytes(my_plan{n})>>>(my_plan{n});
 * // device: auto [keys, vals, tiles] = onchip::carve(plan);
 * @endcode
 * The host evaluation counts bytes; the device evaluation carves this block's dynamic shared memory. Both run the
 * same code, so the launch size always covers what the device takes.
 *
 * **Base alignment.** CUDA guarantees the dynamic shared-memory window starts at least 16-byte aligned (the
 * alignment of the widest built-in vector types; in practice it is often 128 B or 1 KiB, but that is not
 * promised, and `__align__` on an `extern __shared__` array is not reliably honoured). onchip assumes 16:
 * alignments up to 16 cost nothing at run time (offsets are constants when extents are), and a stronger alignment
 * rounds the real address once and moves the carver's anchor there, for which the host counts the worst case
 * (at most `Align - 16` bytes each time the anchor moves). So `smem_bytes(plan)` is exact for plans that align
 * to 16 or less, and never less than the device needs otherwise.
 *
 * **Checked mode** (`ONCHIP_CHECKS`, default on unless `NDEBUG`): a take beyond the launched dynamic size, or a
 * window that is not 16-byte aligned, prints what was asked and what the launch provided, then traps.
 */
#pragma once

#include <onchip/detail/check.cuh>
#include <onchip/detail/config.cuh>
#include <onchip/detail/error.cuh>
#include <onchip/detail/smem/layout.cuh>
#include <onchip/detail/smem/report.cuh>

#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/mdspan>
#include <cuda/std/span>
#include <cuda/std/tuple>
#include <cuda/std/type_traits>
#include <cuda/std/utility>
#include <nv/target>

#include <cuda_runtime_api.h>

#include <string>

namespace onchip {

/// Alignment CUDA guarantees for the start of the dynamic shared-memory window; onchip relies on nothing more.
inline constexpr cuda::std::size_t dynamic_smem_base_alignment = detail::smem_base_alignment;

/**
 * @brief A `cuda::std::span` whose first element is known, at compile time, to be aligned to `Align` bytes.
 *
 * `carver::take_aligned` returns one, so the alignment a plan promised survives into the code that uses the array:
 * onchip's asynchronous copies (`<onchip/stage.cuh>`) require `Align >= 16` in their parameter types instead of
 * testing addresses at run time. It is a span (it converts to `cuda::std::span<T, Extent>` wherever one is
 * expected), and it converts to an aligned_span of a weaker alignment or of `const T`.
 * @tparam T       element type
 * @tparam Align   guaranteed alignment of `data()` in bytes: a power of two, at least `alignof(T)`
 * @tparam Extent  as for `cuda::std::span`
 */
template <class T, cuda::std::size_t Align, cuda::std::size_t Extent = cuda::std::dynamic_extent>
class aligned_span : public cuda::std::span<T, Extent> {
  static_assert(detail::is_pow2(Align) && Align >= alignof(T),
                "onchip::aligned_span<T, Align>: Align must be a power of two and at least alignof(T)");
  using base = cuda::std::span<T, Extent>;

 public:
  /// The alignment `data()` is guaranteed to have, in bytes.
  static constexpr cuda::std::size_t alignment = Align;

  /// An empty span (only for a dynamic extent or an extent of 0).
  template <cuda::std::size_t E = Extent,
            cuda::std::enable_if_t<E == cuda::std::dynamic_extent || E == 0, int> = 0>
  ONCHIP_HOST_DEVICE constexpr aligned_span() noexcept {}

  /// Views `n` objects at `data`, which the caller promises is aligned to `Align` (checked in checked mode; a null
  /// `data`, as a measuring carver returns, is accepted).
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE aligned_span(T* data, cuda::std::size_t n) noexcept : base(data, n) {
    detail::check_span_alignment(data, Align);
  }

  /// The same elements with a weaker (or equal) alignment promise, or as `const T`.
  template <class U, cuda::std::size_t A, cuda::std::size_t E,
            cuda::std::enable_if_t<(A >= Align) && cuda::std::is_convertible_v<U (*)[], T (*)[]> &&
                                       (Extent == cuda::std::dynamic_extent || Extent == E),
                                   int> = 0>
  ONCHIP_HOST_DEVICE constexpr aligned_span(const aligned_span<U, A, E>& other) noexcept
      : base(other.data(), other.size()) {}
};

/**
 * @brief Promises that `s.data()` is aligned to `Align` bytes (checked in checked mode), for shared memory that
 * onchip did not carve.
 */
template <cuda::std::size_t Align, class T, cuda::std::size_t Extent>
ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE aligned_span<T, Align, Extent> assume_aligned(cuda::std::span<T, Extent> s) {
  return aligned_span<T, Align, Extent>(s.data(), s.size());
}

/**
 * @brief A bump allocator over a byte range, usable in host and device code.
 *
 * Each `take` returns a typed span aligned to at least `alignof(T)`. A default-constructed carver *measures*: it
 * owns no memory, has unbounded capacity, returns spans whose data pointer is null, and counts the worst-case
 * bytes a plan needs (this is what onchip::smem_bytes uses). In device code, get one over the block's dynamic
 * shared memory with onchip::dynamic_smem(), or use onchip::carve(plan).
 */
class carver {
 public:
  /// A measuring carver: no memory, unbounded capacity; `used()` is the worst case over window alignments.
  constexpr carver() noexcept = default;

  /**
   * @brief Carves `capacity` bytes starting at `base`.
   * @param base      start of the range; must be aligned to at least 16 bytes (checked in checked mode)
   * @param capacity  bytes available from `base`
   */
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE carver(void* base, cuda::std::size_t capacity) noexcept
      : base_(static_cast<cuda::std::byte*>(base)), capacity_(capacity), measuring_(false) {
    check_base();
  }

  /// Carves `window`, whose start must be aligned to at least 16 bytes.
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE explicit carver(cuda::std::span<cuda::std::byte> window) noexcept
      : carver(window.data(), window.size()) {}

  /**
   * @brief Takes `n` objects of `T`, aligned to `alignof(T)`.
   * @tparam T  a trivially default constructible type (shared memory is uninitialized)
   */
  template <class T>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE cuda::std::span<T> take(cuda::std::size_t n) {
    return cuda::std::span<T>(raw<alignof(T), T>(n, "take"), n);
  }

  /// Takes `N` objects of `T` (a compile-time extent), aligned to `alignof(T)`.
  template <class T, cuda::std::size_t N>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE cuda::std::span<T, N> take() {
    return cuda::std::span<T, N>(raw<alignof(T), T>(N, "take"), N);
  }

  /**
   * @brief Takes `n` objects of `T` aligned to `max(Align, alignof(T))`.
   * @tparam Align  a power of two, e.g. 16 for `cp.async`, 128 for TMA, 1024 for swizzled TMA tiles
   * @return a span that carries its alignment in its type (it converts to `cuda::std::span<T>`)
   */
  template <cuda::std::size_t Align, class T>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE aligned_span<T, detail::max_align<Align, T>> take_aligned(
      cuda::std::size_t n) {
    return aligned_span<T, detail::max_align<Align, T>>(raw<Align, T>(n, "take"), n);
  }

  /// Takes `N` objects of `T` (a compile-time extent) aligned to `max(Align, alignof(T))`.
  template <cuda::std::size_t Align, class T, cuda::std::size_t N>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE aligned_span<T, detail::max_align<Align, T>, N> take_aligned() {
    return aligned_span<T, detail::max_align<Align, T>, N>(raw<Align, T>(N, "take"), N);
  }

  /// Row-major 2-D view whose rows are `cols + pad` elements apart (e.g. pad 1 against bank conflicts).
  template <class T>
  using rows_view = cuda::std::mdspan<T, cuda::std::dextents<int, 2>, cuda::std::layout_stride>;

  /**
   * @brief Takes a `rows` x `cols` array of `T` whose rows are padded by `pad` elements.
   *
   * Element (r, c) lies at `r * (cols + pad) + c`. With 4-byte elements and 32 columns, `pad = 1` puts a
   * column's elements in 32 different banks. The padding after the last row is not taken.
   */
  template <class T>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE rows_view<T> take_rows(int rows, int cols, int pad = 0) {
    const int stride = cols + pad;
    const cuda::std::size_t n =
        rows > 0 && cols > 0 ? static_cast<cuda::std::size_t>(rows - 1) * stride + cols : 0;
    T* p = raw<alignof(T), T>(n, "take_rows");
    using mapping = typename cuda::std::layout_stride::template mapping<cuda::std::dextents<int, 2>>;
    return rows_view<T>(p, mapping(cuda::std::dextents<int, 2>(rows, cols), cuda::std::array<int, 2>{stride, 1}));
  }

  /**
   * @brief Carves alternatives from the same offset, like the members of a union, for phases that never live
   * at the same time; advances by the largest.
   * @param plans  plans `(carver&) -> R`; each starts where the carver stands
   * @return a `cuda::std::tuple` of each plan's result (void results are not allowed)
   */
  ONCHIP_EXEC_CHECK_DISABLE
  template <class... Plans>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE auto overlay(Plans&&... plans) {
    static_assert(sizeof...(Plans) > 0, "onchip::carver::overlay: pass at least one plan");
    static_assert((!cuda::std::is_void_v<cuda::std::invoke_result_t<Plans&, carver&>> && ...),
                  "onchip::carver::overlay: every plan must return what it carved (a span, a tuple, ...), since "
                  "overlay returns a tuple of the plans' results");
    const detail::carve_state start = state_;
    cuda::std::size_t furthest = start.used;
    bool rebased = false;
    open_overlay();
    // Braced initialization evaluates the plans left to right.
    cuda::std::tuple<cuda::std::invoke_result_t<Plans&, carver&>...> results{
        overlay_alternative(plans, start, furthest, rebased)...};
    state_ = detail::merge_overlay(start, furthest, rebased);
    close_overlay();
    return results;
  }

  /// Bytes consumed so far, padding included (for a measuring carver: the worst case).
  ONCHIP_HOST_DEVICE constexpr cuda::std::size_t used() const noexcept { return state_.used; }
  /// Bytes still available (0 once exhausted).
  ONCHIP_HOST_DEVICE constexpr cuda::std::size_t remaining() const noexcept {
    return capacity_ > state_.used ? capacity_ - state_.used : 0;
  }
  /// Bytes the carver was given (the largest size_t for a measuring carver).
  ONCHIP_HOST_DEVICE constexpr cuda::std::size_t capacity() const noexcept { return capacity_; }
  /// True for a default-constructed (measuring) carver.
  ONCHIP_HOST_DEVICE constexpr bool measuring() const noexcept { return measuring_; }

  /// @cond INTERNAL
  // For onchip::describe: records each take on the host.
  void record_into(detail::layout_recorder* recorder) noexcept { recorder_ = recorder; }
  /// @endcond

 private:
  template <cuda::std::size_t Align, class T>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE T* raw(cuda::std::size_t n, const char* what) {
    static_assert(cuda::std::is_trivially_default_constructible_v<T>,
                  "onchip::carver: T must be trivially default constructible, because shared memory starts "
                  "uninitialized and no constructor runs. Take raw storage instead, e.g. "
                  "take_aligned<alignof(T), cuda::std::byte>(n * sizeof(T)), and placement-new your objects.");
    static_assert(!cuda::std::is_reference_v<T> && !cuda::std::is_function_v<T>,
                  "onchip::carver: T must be an object type");
    static_assert(detail::is_pow2(Align), "onchip::carver::take_aligned<Align, T>: Align must be a power of two");
    constexpr cuda::std::size_t align = Align > alignof(T) ? Align : alignof(T);
    [[maybe_unused]] const cuda::std::size_t before = state_.used;
    if (align > state_.anchor_align) { rebase(align); }
    const cuda::std::size_t offset = detail::aligned_position(state_, align);
    const cuda::std::size_t bytes = measuring_ ? detail::array_bytes(n, sizeof(T)) : n * sizeof(T);
    state_.used = offset + bytes;
    check_capacity(what, n, sizeof(T), align);
    NV_IF_TARGET(NV_IS_HOST, (if (recorder_ != nullptr) {
                   detail::record_take(*recorder_, what, n, detail::type_name<T>(), offset, bytes, align,
                                       offset - before);
                 }))
    return measuring_ ? nullptr : reinterpret_cast<T*>(base_ + offset);
  }

  // Moves the anchor to the next address aligned to `align`: the real one when carving, the worst case when
  // measuring (see detail::carve_state).
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void rebase(cuda::std::size_t align) {
    cuda::std::size_t padding;
    if (measuring_) {
      padding = detail::worst_rebase_padding(state_, align);
    } else {
      const auto address = reinterpret_cast<cuda::std::uintptr_t>(base_ + state_.used);
      padding = detail::align_up(address, align) - address;
    }
    state_ = detail::carve_state{state_.used + padding, state_.used + padding, align};
  }

  ONCHIP_EXEC_CHECK_DISABLE
  template <class Plan>
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE decltype(auto) overlay_alternative(Plan& plan,
                                                                           const detail::carve_state& start,
                                                                           cuda::std::size_t& furthest,
                                                                           bool& rebased) {
    state_ = start;
    decltype(auto) result = plan(*this);
    furthest = state_.used > furthest ? state_.used : furthest;
    rebased = rebased || state_.anchor != start.anchor;
    return result;
  }

  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void check_base() const;
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void check_capacity(const char* what, cuda::std::size_t n,
                                                            cuda::std::size_t size, cuda::std::size_t align) const;
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void open_overlay();
  ONCHIP_HOST_DEVICE ONCHIP_FORCEINLINE void close_overlay();

  cuda::std::byte* base_ = nullptr;
  cuda::std::size_t capacity_ = ~cuda::std::size_t{0};
  detail::carve_state state_{};
  bool measuring_ = true;
  detail::layout_recorder* recorder_ = nullptr;
};

/**
 * @brief Bytes of dynamic shared memory to launch with so that `plan` fits, whatever 16-byte-aligned address the
 * window starts at.
 * @param plan  a callable `(onchip::carver&) -> R`, callable on the host
 */
ONCHIP_EXEC_CHECK_DISABLE
template <class Plan>
ONCHIP_HOST_DEVICE cuda::std::size_t smem_bytes(Plan&& plan) {
  carver measure;
  static_cast<void>(plan(measure));
  return measure.used();
}

#if defined(__CUDACC__)
/**
 * @brief A carver over this block's dynamic shared memory; its capacity is the launch's dynamic size
 * (`%dynamic_smem_size`).
 *
 * onchip declares the one `extern __shared__` array itself, so templated kernels never hit "declaration is
 * incompatible with previous declaration".
 */
ONCHIP_DEVICE ONCHIP_FORCEINLINE carver dynamic_smem() noexcept;

/**
 * @brief Evaluates `plan` over this block's dynamic shared memory and returns its result (e.g. a tuple of spans).
 * Every thread of the block gets the same spans.
 */
template <class Plan>
ONCHIP_DEVICE ONCHIP_FORCEINLINE decltype(auto) carve(Plan&& plan) {
  carver smem = dynamic_smem();
  return plan(smem);
}
#endif

/**
 * @brief A printable report of the plan's layout: each array's offset, size, alignment and padding, and the
 * total, as the host counts them (worst case over window alignments).
 */
template <class Plan>
std::string describe(Plan&& plan);

/**
 * @brief Lets `kernel` launch with `bytes` of dynamic shared memory: raises its
 * `cudaFuncAttributeMaxDynamicSharedMemorySize` when needed (never lowers it), counting its static shared memory
 * against the device's opt-in limit (227 KB on H100/H200). Thread-safe and idempotent. For the current device.
 * @return cudaSuccess, or cudaErrorInvalidValue (with last_error_message() naming static, dynamic and available
 * bytes) when the request cannot fit, or the CUDA error of the attribute calls.
 */
template <class Kernel>
cudaError_t prepare_dynamic_smem(Kernel* kernel, cuda::std::size_t bytes);

/**
 * @brief Resident blocks per SM for `kernel` launched with `block_threads` threads and `bytes` of dynamic shared
 * memory (CUDA's occupancy calculator). Like CUDA's, it counts 0 blocks when `bytes` exceeds the kernel's current
 * dynamic limit: call prepare_dynamic_smem first for sizes above 48 KB.
 * @param[out] blocks  the block count; 0 on error
 * @param kernel         the kernel (a __global__ function)
 * @param block_threads  threads per block of the launch
 * @param bytes          dynamic shared memory per block of the launch
 */
template <class Kernel>
cudaError_t blocks_per_sm(int* blocks, Kernel* kernel, int block_threads, cuda::std::size_t bytes);

/**
 * @brief The largest extent `n` (up to `max_extent`) such that the plan `make_plan(n)` still lets `kernel` keep
 * `target_blocks_per_sm` blocks of `block_threads` threads resident per SM; for sizing tiles and stage counts.
 * `smem_bytes(make_plan(n))` must not decrease as `n` grows. Raises the kernel's dynamic shared-memory limit to
 * the device maximum (as prepare_dynamic_smem does), because CUDA's occupancy calculator treats sizes above the
 * current limit as unlaunchable.
 * @param[out] extent  the extent found; 0 on error
 * @param make_plan            callable taking an extent and returning a plan
 * @param kernel               the kernel (a __global__ function)
 * @param block_threads        threads per block of the launch
 * @param target_blocks_per_sm resident blocks per SM to keep
 * @param max_extent           the largest extent tried
 * @return cudaErrorInvalidValue (with a message) when even `make_plan(0)` does not fit
 */
template <class MakePlan, class Kernel>
cudaError_t fit_extent(cuda::std::size_t* extent, MakePlan&& make_plan, Kernel* kernel, int block_threads,
                       int target_blocks_per_sm, cuda::std::size_t max_extent = cuda::std::size_t{1} << 32);

}  // namespace onchip

#include <onchip/detail/smem/smem_impl.cuh>
