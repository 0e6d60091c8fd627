// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Instruction contracts of every cache policy at 4, 8 and 16 bytes: the PTX qualifier, the SASS opcode and
// suffix, and never a generic (LD.E) or local-memory access. Kernels take plain pointers on purpose: the
// policy must not depend on what the compiler can prove about aliasing.
//
// contract sass * lacks \bLD\.E|LDL|STL
// contract ptx  * lacks ld\.(b|u|v|f)
// contract ptx  k_normal_4 has   ld\.global\.(b32|b64|v4\.b32)
// contract sass k_normal_4 has   LDG\.E 
// contract sass k_normal_4 lacks CONSTANT|\.EF|\.NA|\.LU|\.EL
// contract ptx  k_normal_8 has   ld\.global\.(b32|b64|v4\.b32)
// contract sass k_normal_8 has   LDG\.E\.64 
// contract sass k_normal_8 lacks CONSTANT|\.EF|\.NA|\.LU|\.EL
// contract ptx  k_normal_16 has   ld\.global\.(b32|b64|v4\.b32)
// contract sass k_normal_16 has   LDG\.E\.128 
// contract sass k_normal_16 lacks CONSTANT|\.EF|\.NA|\.LU|\.EL
// contract ptx  k_readonly_4 has   ld\.global\.nc\.(b32|b64|v4\.b32)
// contract sass k_readonly_4 has   LDG\.E\.CONSTANT
// contract sass k_readonly_4 lacks \.EF|\.NA|\.LU|\.EL
// contract ptx  k_readonly_8 has   ld\.global\.nc\.(b32|b64|v4\.b32)
// contract sass k_readonly_8 has   LDG\.E\.64\.CONSTANT
// contract sass k_readonly_8 lacks \.EF|\.NA|\.LU|\.EL
// contract ptx  k_readonly_16 has   ld\.global\.nc\.(b32|b64|v4\.b32)
// contract sass k_readonly_16 has   LDG\.E\.128\.CONSTANT
// contract sass k_readonly_16 lacks \.EF|\.NA|\.LU|\.EL
// contract ptx  k_stream_4 has   ld\.global\.cs\.nc\.(b32|b64|v4\.b32)
// contract sass k_stream_4 has   LDG\.E\.EF\.CONSTANT
// contract sass k_stream_4 lacks \.NA|\.LU|\.EL
// contract ptx  k_stream_8 has   ld\.global\.cs\.nc\.(b32|b64|v4\.b32)
// contract sass k_stream_8 has   LDG\.E\.EF\.64\.CONSTANT
// contract sass k_stream_8 lacks \.NA|\.LU|\.EL
// contract ptx  k_stream_16 has   ld\.global\.cs\.nc\.(b32|b64|v4\.b32)
// contract sass k_stream_16 has   LDG\.E\.EF\.128\.CONSTANT
// contract sass k_stream_16 lacks \.NA|\.LU|\.EL
// contract ptx  k_last_use_4 has   ld\.global\.lu\.(b32|b64|v4\.b32)
// contract sass k_last_use_4 has   LDG\.E\.LU 
// contract sass k_last_use_4 lacks CONSTANT|\.EF|\.NA|\.EL
// contract ptx  k_last_use_8 has   ld\.global\.lu\.(b32|b64|v4\.b32)
// contract sass k_last_use_8 has   LDG\.E\.LU\.64 
// contract sass k_last_use_8 lacks CONSTANT|\.EF|\.NA|\.EL
// contract ptx  k_last_use_16 has   ld\.global\.lu\.(b32|b64|v4\.b32)
// contract sass k_last_use_16 has   LDG\.E\.LU\.128 
// contract sass k_last_use_16 lacks CONSTANT|\.EF|\.NA|\.EL
// contract ptx  k_no_allocate_4 has   ld\.global\.L1::no_allocate\.(b32|b64|v4\.b32)
// contract sass k_no_allocate_4 has   LDG\.E\.NA 
// contract sass k_no_allocate_4 lacks CONSTANT|\.EF|\.LU|\.EL
// contract ptx  k_no_allocate_8 has   ld\.global\.L1::no_allocate\.(b32|b64|v4\.b32)
// contract sass k_no_allocate_8 has   LDG\.E\.NA\.64 
// contract sass k_no_allocate_8 lacks CONSTANT|\.EF|\.LU|\.EL
// contract ptx  k_no_allocate_16 has   ld\.global\.L1::no_allocate\.(b32|b64|v4\.b32)
// contract sass k_no_allocate_16 has   LDG\.E\.NA\.128 
// contract sass k_no_allocate_16 lacks CONSTANT|\.EF|\.LU|\.EL
// contract ptx  k_evict_last_4 has   ld\.global\.L1::evict_last\.(b32|b64|v4\.b32)
// contract sass k_evict_last_4 has   LDG\.E\.EL 
// contract sass k_evict_last_4 lacks CONSTANT|\.EF|\.NA|\.LU
// contract ptx  k_evict_last_8 has   ld\.global\.L1::evict_last\.(b32|b64|v4\.b32)
// contract sass k_evict_last_8 has   LDG\.E\.EL\.64 
// contract sass k_evict_last_8 lacks CONSTANT|\.EF|\.NA|\.LU
// contract ptx  k_evict_last_16 has   ld\.global\.L1::evict_last\.(b32|b64|v4\.b32)
// contract sass k_evict_last_16 has   LDG\.E\.EL\.128 
// contract sass k_evict_last_16 lacks CONSTANT|\.EF|\.NA|\.LU
#include <onchip/load.cuh>

#define PROBE(POLICY, T, NAME)                                                    \
  extern "C" __global__ void NAME(const T* in, T* out) {                          \
    out[threadIdx.x] = onchip::load<onchip::cache::POLICY>(in + threadIdx.x);    \
  }

PROBE(normal, float, k_normal_4)
PROBE(normal, double, k_normal_8)
PROBE(normal, float4, k_normal_16)
PROBE(readonly, float, k_readonly_4)
PROBE(readonly, double, k_readonly_8)
PROBE(readonly, float4, k_readonly_16)
PROBE(stream, float, k_stream_4)
PROBE(stream, double, k_stream_8)
PROBE(stream, float4, k_stream_16)
PROBE(last_use, float, k_last_use_4)
PROBE(last_use, double, k_last_use_8)
PROBE(last_use, float4, k_last_use_16)
PROBE(no_allocate, float, k_no_allocate_4)
PROBE(no_allocate, double, k_no_allocate_8)
PROBE(no_allocate, float4, k_no_allocate_16)
PROBE(evict_last, float, k_evict_last_4)
PROBE(evict_last, double, k_evict_last_8)
PROBE(evict_last, float4, k_evict_last_16)
