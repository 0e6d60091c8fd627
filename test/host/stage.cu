// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host proofs of the asynchronous stages' arithmetic: how a copy is cut at 16-byte boundaries, how big a stage
// must be for every source alignment, how tiles and halos cover a range, and that a staging plan carves exactly
// what smem_bytes counts, against references computed here by brute force.
#include <onchip/histogram.cuh>
#include <onchip/stage.cuh>

#include <cuda/std/tuple>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "support/onchip_test.hpp"

namespace {

struct float3_like {  // 12 bytes, aligned to 4: a tile's elements can straddle a 16-byte boundary
  float x, y, z;
};
struct alignas(32) wide {  // aligned beyond the copy granule
  double v[4];
};

template <class T>
void check_stage_sizes() {
  CAPTURE(sizeof(T));
  for (std::size_t capacity = 0; capacity < 300; ++capacity) {
    const std::size_t bytes = onchip::stage_bytes<T>(capacity);
    CHECK(bytes % 16 == 0);
    std::size_t worst_end = 0;  // the furthest byte any source alignment puts an element at
    for (std::size_t k = 0; k < 16; k += alignof(T)) {
      const std::size_t end = k + capacity * sizeof(T);
      worst_end = end > worst_end ? end : worst_end;
    }
    CHECK(worst_end <= bytes);
    CHECK(bytes < worst_end + 16);  // no more than the rounding to 16
    CHECK(onchip::detail::stage_capacity<T>(bytes) >= capacity);
    CHECK(onchip::detail::stage_capacity<T>(bytes) < capacity + 16 / sizeof(T) + 1);
  }
}

}  // namespace

TEST_CASE("a copy is cut into a head, a 16-byte body and a tail that tile it exactly") {
  for (std::uintptr_t address = 4096; address < 4096 + 48; ++address) {
    for (std::size_t bytes = 0; bytes < 100; ++bytes) {
      CAPTURE(address);
      CAPTURE(bytes);
      // Reference: the whole 16-byte chunks inside [address, address + bytes).
      std::size_t body_first = 0, body_bytes = 0;
      for (std::uintptr_t a = address; a + 16 <= address + bytes; ++a) {
        if (a % 16 == 0) {
          if (body_bytes == 0) { body_first = a - address; }
          body_bytes += 16;
          a += 15;
        }
      }
      const auto s = onchip::detail::split_copy(address, bytes);
      CHECK(s.offset == address % 16);
      CHECK(s.body == body_bytes);
      if (body_bytes > 0) {
        CHECK(s.head == body_first);
        CHECK((s.offset + s.head) % 16 == 0);  // the body is 16-byte aligned in the stage too
      }
      CHECK(s.head + s.body + s.tail == bytes);
      CHECK(s.head < 16);
      CHECK(s.tail < 16);
    }
  }
}

TEST_CASE("a stage holds its capacity from every source alignment") {
  check_stage_sizes<unsigned char>();
  check_stage_sizes<short>();
  check_stage_sizes<float>();
  check_stage_sizes<double>();
  check_stage_sizes<float4>();
  check_stage_sizes<float3_like>();
  check_stage_sizes<wide>();
  CHECK(onchip::stage_bytes<float>(0) == 16);
  CHECK(onchip::stage_bytes<float4>(0) == 0);
}

TEST_CASE("tiles own [0, n) in order and carry their halo clipped to the range") {
  for (std::size_t n = 0; n < 60; ++n) {
    for (std::size_t tile = 1; tile < 10; ++tile) {
      for (std::size_t before = 0; before < 4; ++before) {
        for (std::size_t after = 0; after < 4; ++after) {
          CAPTURE(n);
          CAPTURE(tile);
          const std::size_t tiles = onchip::detail::tile_count(n, tile);
          CHECK(tiles == (n + tile - 1) / tile);
          std::size_t next = 0;
          for (std::size_t t = 0; t < tiles; ++t) {
            const auto r = onchip::detail::tile_at(t, tile, before, after, n);
            CHECK(r.begin == next);
            CHECK(r.end > r.begin);
            CHECK(r.end - r.begin <= tile);
            CHECK(r.first == (r.begin >= before ? r.begin - before : 0));
            CHECK(r.first + r.count == (r.end + after <= n ? r.end + after : n));
            CHECK(r.count <= tile + before + after);
            next = r.end;
          }
          CHECK(next == n);
        }
      }
    }
  }
  CHECK(onchip::detail::tile_count(5, 0) == 0);
}

TEST_CASE("take_aligned's span carries its alignment and converts to cuda::std::span") {
  onchip::carver measure;
  auto a = measure.take_aligned<16, float>(10);
  auto b = measure.take_aligned<4, double>(3);  // alignof(double) wins
  auto c = measure.take_aligned<128, char, 64>();
  static_assert(std::is_same_v<decltype(a), onchip::aligned_span<float, 16>>);
  static_assert(decltype(b)::alignment == 8);
  static_assert(std::is_same_v<decltype(c), onchip::aligned_span<char, 128, 64>>);
  static_assert(std::is_convertible_v<decltype(a), cuda::std::span<float>>);
  static_assert(std::is_convertible_v<decltype(a), onchip::aligned_span<const float, 8>>);
  static_assert(!std::is_convertible_v<onchip::aligned_span<float, 8>, onchip::aligned_span<float, 16>>);
  static_assert(!std::is_convertible_v<cuda::std::span<float>, onchip::aligned_span<float, 16>>);
  CHECK(a.size() == 10);
  CHECK(c.size() == 64);
  alignas(64) static float storage[16];
  auto d = onchip::assume_aligned<64>(cuda::std::span<float>(storage));
  CHECK(d.data() == storage);
  const cuda::std::span<float> e = d;
  CHECK(e.size() == 16);
}

TEST_CASE("a staging plan carves exactly what smem_bytes counts, at every window alignment") {
  struct plan {
    std::size_t tile;
    int threads;
    ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
      auto head = c.take<char>(3);  // leaves the carver misaligned
      auto st = onchip::staging<float3_like, 3>{tile, {2, 5}}(c);
      auto hist = onchip::block_histogram<256>(c, threads);
      return cuda::std::tuple{head, st, hist};
    }
  };
  std::unique_ptr<unsigned char[]> storage(new unsigned char[1 << 18]);
  const auto base = (reinterpret_cast<std::uintptr_t>(storage.get()) + 4095) / 4096 * 4096;
  for (std::size_t tile : {std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
    const std::size_t bytes = onchip::smem_bytes(plan{tile, 256});
    const std::size_t stage = onchip::stage_bytes<float3_like>(tile + 7);
    CHECK(bytes == 16 + 3 * stage + 3 * 8 + onchip::block_histogram<256>::smem_bytes(256));
    for (std::uintptr_t r = 0; r < 4096; r += 16) {
      auto* window = reinterpret_cast<unsigned char*>(base + r);
      onchip::carver c(window, bytes);
      auto [head, st, hist] = plan{tile, 256}(c);
      static_cast<void>(head), static_cast<void>(hist);
      CHECK(c.used() == bytes);
      CHECK(st.tile == tile);
      CHECK(st.halo.before == 2);
      CHECK(st.halo.after == 5);
      for (int s = 0; s < 3; ++s) {
        const auto& b = st.buffers[s];
        CHECK(reinterpret_cast<std::uintptr_t>(b.bytes().data()) % 16 == 0);
        CHECK(reinterpret_cast<std::uintptr_t>(b.barrier()) % 8 == 0);
        CHECK(b.bytes().size() == stage);
        CHECK(b.capacity() >= tile + 7);
        CHECK(b.bytes().data() + b.bytes().size() <= reinterpret_cast<cuda::std::byte*>(st.buffers[0].barrier()));
      }
    }
  }
}
