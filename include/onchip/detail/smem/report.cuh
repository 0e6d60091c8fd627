// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host-side recording of a plan's layout, for onchip::describe.
#pragma once

#include <onchip/detail/config.cuh>

#include <cuda/std/cstddef>

#include <string>
#include <string_view>
#include <vector>

namespace onchip::detail {

/// Name of T as the host compiler spells it (from __PRETTY_FUNCTION__; falls back to "T").
template <class T>
std::string_view type_name() {
#if defined(__GNUC__) || defined(__clang__)
  std::string_view f = __PRETTY_FUNCTION__;
  const auto start = f.find("T = ");
  if (start != std::string_view::npos) {
    f.remove_prefix(start + 4);
    const auto end = f.find_first_of(";]");
    return f.substr(0, end);
  }
#endif
  return "T";
}

/// One array a plan took.
struct layout_entry {
  std::string what;             ///< e.g. "take<float>(256)"
  cuda::std::size_t offset;     ///< bytes from the window's start (worst case for the host)
  cuda::std::size_t bytes;      ///< size of the array
  cuda::std::size_t alignment;  ///< alignment the array is guaranteed
  cuda::std::size_t padding;    ///< bytes skipped before it (worst case)
  int depth;                    ///< overlay nesting depth
};

struct layout_recorder {
  std::vector<layout_entry> entries;
  int depth = 0;
};

}  // namespace onchip::detail

namespace onchip::detail {

inline void record_take(layout_recorder& r, const char* what, cuda::std::size_t n, std::string_view type,
                        cuda::std::size_t offset, cuda::std::size_t bytes, cuda::std::size_t align,
                        cuda::std::size_t padding) {
  std::string label = std::string(what) + "<" + std::string(type) + ">(" + std::to_string(n) + ")";
  r.entries.push_back(layout_entry{std::move(label), offset, bytes, align, padding, r.depth});
}

inline void record_marker(layout_recorder& r, std::string label, cuda::std::size_t offset) {
  r.entries.push_back(layout_entry{std::move(label), offset, 0, 0, 0, r.depth});
}

}  // namespace onchip::detail
