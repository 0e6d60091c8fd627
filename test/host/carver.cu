// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host proofs of the carver's layout: offsets, padding, totals, overlays and views, against a reference layout
// computed here independently, and smem_bytes against carving real buffers at every 16-byte base alignment.
#include <onchip/smem.cuh>

#include <cuda/std/tuple>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "support/carve_mix.hpp"
#include "support/onchip_test.hpp"

namespace {

using carve_mix::request;

// A 4096-aligned host arena; carving at arena + r for r = 0, 16, ..., 4080 tries every window alignment a
// 16-byte-aligned base can have with respect to alignments up to 4096.
struct arena {
  static constexpr std::size_t bytes = 1 << 20;
  std::unique_ptr<unsigned char[]> storage{new unsigned char[bytes + 4096]};
  unsigned char* base() const {
    auto p = reinterpret_cast<std::uintptr_t>(storage.get());
    return reinterpret_cast<unsigned char*>((p + 4095) / 4096 * 4096);
  }
};

// Checks one plan everywhere: every array aligned, inside the window, not overlapping an earlier one; the
// carver's own use within smem_bytes; and, from a 4096-aligned base, exactly the natural layout.
void check_requests(const arena& a, const std::vector<request>& reqs) {
  const int n = static_cast<int>(reqs.size());
  const std::size_t bytes = onchip::smem_bytes(carve_mix::plan{reqs.data(), n, nullptr});
  std::vector<std::size_t> natural(reqs.size());
  const std::size_t natural_end = carve_mix::natural_layout(reqs.data(), n, natural.data());
  bool small_alignments = true;
  for (const auto& r : reqs) { small_alignments = small_alignments && (1 << r.align_log2) <= 16; }
  if (small_alignments) {
    REQUIRE(bytes == natural_end);  // exact: nothing to round at run time
  } else {
    REQUIRE(bytes >= natural_end);
  }
  std::vector<carve_mix::carved> out(reqs.size());
  for (std::size_t residue = 0; residue < 4096; residue += 16) {
    unsigned char* window = a.base() + residue;
    onchip::carver c(window, bytes);
    carve_mix::plan{reqs.data(), n, out.data()}(c);
    REQUIRE(c.used() <= bytes);
    const auto lo = reinterpret_cast<std::uintptr_t>(window);
    for (int i = 0; i < n; ++i) {
      INFO("request " << i << " of " << n << ", window residue " << residue);
      REQUIRE(out[i].address % out[i].alignment == 0);
      REQUIRE(out[i].address >= lo);
      REQUIRE(out[i].address + out[i].bytes <= lo + bytes);
      if (i > 0) { REQUIRE(out[i].address >= out[i - 1].address + out[i - 1].bytes); }
      if (residue == 0) { REQUIRE(out[i].address - lo == natural[i]); }
    }
  }
}

}  // namespace

TEST_CASE("layout arithmetic: align_up and worst-case rebase padding") {
  using onchip::detail::align_up;
  CHECK(align_up(0, 16) == 0);
  CHECK(align_up(1, 16) == 16);
  CHECK(align_up(16, 16) == 16);
  CHECK(align_up(1023, 1024) == 1024);
  // From a position 3 bytes past a 16-aligned anchor, reaching a 1024 boundary can take 13 + 1008 bytes.
  onchip::detail::carve_state s{3, 0, 16};
  CHECK(onchip::detail::worst_rebase_padding(s, 1024) == 13 + 1008);
  s = {32, 0, 16};
  CHECK(onchip::detail::worst_rebase_padding(s, 32) == 16);
  // Brute force: the worst padding over every 16-aligned base is what the formula says.
  for (std::size_t used = 0; used < 64; ++used) {
    for (std::size_t align = 32; align <= 1024; align *= 2) {
      std::size_t worst = 0;
      for (std::size_t base = 0; base < 4096; base += 16) {
        worst = std::max(worst, align_up(base + used, align) - (base + used));
      }
      CHECK(onchip::detail::worst_rebase_padding({used, 0, 16}, align) == worst);
    }
  }
}

TEST_CASE("the Programming Guide's short/float/int arrays land at 0, 256 and 512") {
  struct guide_plan {
    ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
      auto array0 = c.take<short, 128>();
      auto array1 = c.take<float, 64>();
      auto array2 = c.take<int, 256>();
      return cuda::std::tuple{array0, array1, array2};
    }
  };
  CHECK(onchip::smem_bytes(guide_plan{}) == 128 * 2 + 64 * 4 + 256 * 4);
  arena a;
  onchip::carver c(a.base(), 4096);
  auto [s0, s1, s2] = guide_plan{}(c);
  const auto* base = reinterpret_cast<unsigned char*>(a.base());
  CHECK(reinterpret_cast<unsigned char*>(s0.data()) - base == 0);
  CHECK(reinterpret_cast<unsigned char*>(s1.data()) - base == 256);
  CHECK(reinterpret_cast<unsigned char*>(s2.data()) - base == 512);
  CHECK(s1.size() == 64);
}

TEST_CASE("carver aligns a float after 127 shorts (the guide's misaligned &array0[127])") {
  auto plan = [](onchip::carver& c) {
    auto shorts = c.take<short>(127);
    auto floats = c.take<float>(64);
    return cuda::std::tuple{shorts, floats};
  };
  CHECK(onchip::smem_bytes(plan) == 256 + 64 * 4);  // 254 bytes, then 2 of padding
  arena a;
  onchip::carver c(a.base(), 1024);
  auto [shorts, floats] = plan(c);
  CHECK(reinterpret_cast<std::uintptr_t>(floats.data()) % alignof(float) == 0);
  CHECK(reinterpret_cast<unsigned char*>(floats.data()) - reinterpret_cast<unsigned char*>(shorts.data()) == 256);
}

TEST_CASE("static and runtime extents give the same layout") {
  auto static_plan = [](onchip::carver& c) {
    auto a = c.take<unsigned char, 3>();
    auto b = c.take_aligned<64, double, 5>();
    auto d = c.take<float4, 2>();
    return cuda::std::tuple{a.data(), b.data(), d.data()};
  };
  auto runtime_plan = [](onchip::carver& c) {
    auto a = c.take<unsigned char>(3);
    auto b = c.take_aligned<64, double>(5);
    auto d = c.take<float4>(2);
    return cuda::std::tuple{a.data(), b.data(), d.data()};
  };
  CHECK(onchip::smem_bytes(static_plan) == onchip::smem_bytes(runtime_plan));
  arena a;
  for (std::size_t residue = 0; residue < 1024; residue += 16) {
    onchip::carver c1(a.base() + residue, 4096), c2(a.base() + residue, 4096);
    CHECK(static_plan(c1) == runtime_plan(c2));
    CHECK(c1.used() == c2.used());
  }
}

TEST_CASE("exhaustive pairs of 1/2/4/8/16-byte types with alignments 1..1024, at every base alignment") {
  arena a;
  for (int t0 = 0; t0 < carve_mix::type_count; ++t0)
    for (int a0 = 0; a0 < carve_mix::align_count; ++a0)
      for (int t1 = 0; t1 < carve_mix::type_count; ++t1)
        for (int a1 = 0; a1 < carve_mix::align_count; ++a1) {
          // Counts that leave the end unaligned (3) and zero-length arrays both occur.
          check_requests(a, {{t0, a0, 3u}, {t1, a1, static_cast<unsigned>((t0 + a1) % 3)}});
        }
}

TEST_CASE("random mixes of up to 12 arrays") {
  const unsigned seed = 20261129;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  arena a;
  for (int trial = 0; trial < 1500; ++trial) {
    std::vector<request> reqs(1 + rng() % carve_mix::max_requests);
    for (auto& r : reqs) {
      r.type = static_cast<int>(rng() % carve_mix::type_count);
      // Mostly small alignments, sometimes large ones, as real kernels do.
      r.align_log2 = static_cast<int>(rng() % 4 == 0 ? rng() % carve_mix::align_count : rng() % 5);
      r.count = rng() % 5 == 0 ? 0u : rng() % 300;
    }
    INFO("trial " << trial);
    check_requests(a, reqs);
  }
}

TEST_CASE("zero-length takes are aligned and consume only padding") {
  auto plan = [](onchip::carver& c) {
    c.take<char>(1);
    auto empty = c.take<double>(0);
    auto next = c.take<char>(1);
    return cuda::std::tuple{empty, next};
  };
  CHECK(onchip::smem_bytes(plan) == 9);
  arena a;
  onchip::carver c(a.base(), 64);
  auto [empty, next] = plan(c);
  CHECK(empty.empty());
  CHECK(reinterpret_cast<std::uintptr_t>(empty.data()) % 8 == 0);
  CHECK(reinterpret_cast<unsigned char*>(next.data()) == a.base() + 8);
}

TEST_CASE("a measuring carver returns null spans of the right size and counts bytes") {
  onchip::carver m;
  CHECK(m.measuring());
  auto s = m.take<int>(10);
  CHECK(s.data() == nullptr);
  CHECK(s.size() == 10);
  CHECK(m.used() == 40);
  auto t = m.take_aligned<1024, char>(1);
  CHECK(t.size() == 1);
  CHECK(m.used() == 48 + 1008 + 1);  // 40 -> 48 (16-byte anchor), then at most 1008 more to a 1024 boundary
}

TEST_CASE("used, remaining and capacity") {
  arena a;
  onchip::carver c(a.base(), 100);
  CHECK(c.capacity() == 100);
  CHECK(c.remaining() == 100);
  c.take<char>(3);
  c.take<int>(4);  // 3 -> 4, then 16 bytes
  CHECK(c.used() == 20);
  CHECK(c.remaining() == 80);
  onchip::carver w(cuda::std::span<cuda::std::byte>(reinterpret_cast<cuda::std::byte*>(a.base()), 32));
  CHECK(w.capacity() == 32);
  CHECK(!w.measuring());
}

TEST_CASE("an absurd runtime extent saturates the measured size instead of wrapping") {
  onchip::carver m;
  m.take<double>(~std::size_t{0} / 4);
  CHECK(m.used() >= ~std::size_t{0} / 2 - 16);
}

TEST_CASE("overlay: alternatives start together, the carver moves past the largest") {
  struct phases {
    unsigned n;
    ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
      auto head = c.take<char>(5);
      auto [load, reduce] = c.overlay(
          [&](onchip::carver& o) { return o.take<float>(n); },
          [&](onchip::carver& o) { return cuda::std::tuple{o.take<double>(3), o.take<int>(2 * n)}; });
      auto tail = c.take<short>(1);
      return cuda::std::tuple{head, load, reduce, tail};
    }
  };
  for (unsigned n : {0u, 1u, 7u, 100u}) {
    INFO("n = " << n);
    const std::size_t bytes = onchip::smem_bytes(phases{n});
    // head 5; alternatives from 8: 4n, or 24 + 8n from 8 (double) -> the larger is 8 + 24 + 8n.
    CHECK(bytes == 8 + 24 + 8 * n + 2);
    arena a;
    onchip::carver c(a.base(), bytes);
    auto [head, load, reduce, tail] = phases{n}(c);
    auto* base = a.base();
    auto at = [&](const void* p) { return static_cast<const unsigned char*>(p) - base; };
    CHECK(at(load.data()) == 8);
    CHECK(at(cuda::std::get<0>(reduce).data()) == 8);
    CHECK(at(cuda::std::get<1>(reduce).data()) == 32);
    CHECK(at(tail.data()) == 32 + 8 * static_cast<long>(n));
    CHECK(c.used() == bytes);
  }
}

TEST_CASE("overlay with an over-aligned alternative stays within smem_bytes at every base alignment") {
  struct plan {
    ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
      auto a = c.take<char>(3);
      auto [x, y] = c.overlay([](onchip::carver& o) { return o.take_aligned<1024, float>(100); },
                              [](onchip::carver& o) { return o.take<int>(700); });
      auto b = c.take_aligned<256, char>(10);
      return cuda::std::tuple{a, x, y, b};
    }
  };
  const std::size_t bytes = onchip::smem_bytes(plan{});
  arena ar;
  for (std::size_t residue = 0; residue < 4096; residue += 16) {
    unsigned char* w = ar.base() + residue;
    onchip::carver c(w, bytes);
    auto [a, x, y, b] = plan{}(c);
    INFO("residue " << residue);
    REQUIRE(c.used() <= bytes);
    REQUIRE(reinterpret_cast<std::uintptr_t>(x.data()) % 1024 == 0);
    REQUIRE(reinterpret_cast<std::uintptr_t>(b.data()) % 256 == 0);
    const auto end_x = reinterpret_cast<unsigned char*>(x.data() + x.size());
    const auto end_y = reinterpret_cast<unsigned char*>(y.data() + y.size());
    REQUIRE(reinterpret_cast<unsigned char*>(x.data()) >= w + 3);
    REQUIRE(reinterpret_cast<unsigned char*>(y.data()) >= w + 3);
    REQUIRE(reinterpret_cast<unsigned char*>(b.data()) >= std::max(end_x, end_y));
    REQUIRE(reinterpret_cast<unsigned char*>(b.data() + b.size()) <= w + bytes);
  }
}

TEST_CASE("take_rows pads each row and maps (r, c) to r * (cols + pad) + c") {
  arena a;
  onchip::carver c(a.base(), 1 << 16);
  c.take<char>(1);
  auto m = c.take_rows<float>(4, 32, 1);
  CHECK(m.extent(0) == 4);
  CHECK(m.extent(1) == 32);
  CHECK(m.stride(0) == 33);
  CHECK(m.stride(1) == 1);
  float* origin = &m(0, 0);
  CHECK(reinterpret_cast<std::uintptr_t>(origin) % alignof(float) == 0);
  for (int r = 0; r < 4; ++r)
    for (int col = 0; col < 32; ++col) CHECK(&m(r, col) - origin == r * 33 + col);
  CHECK(c.used() == 4 + (3 * 33 + 32) * sizeof(float));  // no padding after the last row
  auto empty = c.take_rows<float>(0, 8, 1);
  CHECK(empty.size() == 0);
}

TEST_CASE("describe reports each array and the same total as smem_bytes") {
  auto plan = [](onchip::carver& c) {
    auto a = c.take<short>(127);
    auto b = c.take_aligned<128, float>(64);
    auto [x, y] = c.overlay([](onchip::carver& o) { return o.take<int>(10); },
                            [](onchip::carver& o) { return o.take<double>(2); });
    return cuda::std::tuple{a, b, x, y};
  };
  const std::string report = onchip::describe(plan);
  INFO(report);
  CHECK(report.find("take<short") != std::string::npos);
  CHECK(report.find("take<float>(64)") != std::string::npos);
  CHECK(report.find("overlay {") != std::string::npos);
  CHECK(report.find("take<double>(2)") != std::string::npos);
  CHECK(report.find("total: " + std::to_string(onchip::smem_bytes(plan)) + " bytes") != std::string::npos);
}

TEST_CASE("checked mode: a host carver over a misaligned base prints the address and aborts") {
  const auto probe = onchip_test::run_check_probe("misaligned");
  const int status = probe.first;
  const std::string& output = probe.second;
  INFO(output);
  CHECK(status != 0);
  CHECK(output.find("is not 16-byte aligned") != std::string::npos);
  CHECK(output.find("accepted") == std::string::npos);
}
