// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host proofs of the load helpers' arithmetic: how traversals split a range into a peeled head, 16-byte vectors
// and a tail, and which vector width a blocked tile can use, against brute-force references.
#include <onchip/load.cuh>

#include <cstdint>

#include "support/onchip_test.hpp"

TEST_CASE("split_for_vectors: head up to the first line boundary, whole vectors, tail") {
  const std::size_t line = onchip::detail::body_alignment;
  for (std::size_t size : {1u, 2u, 4u, 8u, 16u}) {
    for (std::uintptr_t address = 4096; address < 4096 + 2 * line; address += size) {
      for (std::size_t n = 0; n < 300; n += (n < 40 ? 1 : 7)) {
        INFO("size " << size << ", address " << address << ", n " << n);
        const auto s = onchip::detail::split_for_vectors(address, n, size);
        // Reference: walk the elements; the head ends at the first element on a line boundary (or at n).
        std::size_t head = 0;
        while (head < n && (address + head * size) % line != 0) { ++head; }
        const std::size_t per = 16 / size;
        const std::size_t vectors = (n - head) / per;
        REQUIRE(s.head == head);
        REQUIRE(s.vectors == vectors);
        REQUIRE(s.tail == n - head - vectors * per);
        REQUIRE(s.head * size < line);
        REQUIRE(s.tail < per);
      }
    }
  }
}

TEST_CASE("split_for_vectors: no vectors for types that do not pack into 16 bytes or misaligned elements") {
  const auto twelve = onchip::detail::split_for_vectors(4096, 100, 12);
  CHECK(twelve.head == 100);
  CHECK(twelve.vectors == 0);
  const auto misaligned = onchip::detail::split_for_vectors(4097, 100, 4);  // a float at an odd address
  CHECK(misaligned.head == 100);
  CHECK(misaligned.vectors == 0);
}

TEST_CASE("blocked tiles use the widest vector every thread segment allows") {
  using onchip::detail::blocked_vector_bytes;
  for (std::uintptr_t address = 4096; address < 4096 + 32; ++address) {
    for (std::size_t size : {1u, 2u, 4u, 8u, 16u}) {
      if (address % size != 0) { continue; }
      for (std::size_t items = 1; items <= 16; ++items) {
        const std::size_t segment = size * items;
        const int w = blocked_vector_bytes(address, segment, size);
        INFO("address " << address << ", size " << size << ", items " << items << " -> " << w);
        if (w != 0) {
          // Every thread's segment start (address + t * segment) is then aligned to w, and w divides the segment.
          for (std::size_t t = 0; t < 64; ++t) { REQUIRE((address + t * segment) % w == 0); }
          REQUIRE(segment % w == 0);
          REQUIRE(static_cast<std::size_t>(w) >= size);
        }
        // Nothing wider would have been legal.
        for (int wider = (w == 0 ? 4 : 2 * w); wider <= 16; wider *= 2) {
          const bool legal = segment % wider == 0 && address % wider == 0 && static_cast<std::size_t>(wider) >= size;
          REQUIRE(!legal);
        }
      }
    }
  }
}

TEST_CASE("items_per_16b and vec layout") {
  CHECK(onchip::items_per_16b<unsigned char> == 16);
  CHECK(onchip::items_per_16b<short> == 8);
  CHECK(onchip::items_per_16b<float> == 4);
  CHECK(onchip::items_per_16b<double> == 2);
  CHECK(onchip::items_per_16b<float4> == 1);
  CHECK(onchip::items_per_16b<float3> == 0);
  CHECK(alignof(onchip::vec<float, 4>) == 16);
  CHECK(sizeof(onchip::vec<unsigned char, 4>) == 4);
  CHECK(alignof(onchip::vec<unsigned char, 4>) == 4);
}
