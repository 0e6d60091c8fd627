// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The table from a sample dtype to its compiled functions (each defined in its own translation unit).
#include <onchip/detail/error.cuh>

#include "calls.hpp"

namespace onchip_py {

extern const sample_functions functions_u8, functions_i8, functions_u16, functions_i16, functions_u32,
    functions_i32, functions_i64, functions_f16, functions_bf16, functions_f32, functions_f64;

const sample_functions& functions_of(dtype t) {
  switch (t) {
    case dtype::u8: return functions_u8;
    case dtype::i8: return functions_i8;
    case dtype::u16: return functions_u16;
    case dtype::i16: return functions_i16;
    case dtype::u32: return functions_u32;
    case dtype::i32: return functions_i32;
    case dtype::i64: return functions_i64;
    case dtype::f16: return functions_f16;
    case dtype::bf16: return functions_bf16;
    case dtype::f32: return functions_f32;
    default: return functions_f64;
  }
}

const char* last_error_message() noexcept { return onchip::last_error_message(); }

}  // namespace onchip_py
