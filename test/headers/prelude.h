// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Macros that break headers which use these common short names as identifiers.
#pragma once
#define I CANNOT_USE_I_AS_AN_IDENTIFIER
#define small CANNOT_USE_small_AS_AN_IDENTIFIER
#define B0 CANNOT_USE_B0_AS_AN_IDENTIFIER
