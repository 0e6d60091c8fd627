// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/**
 * @file
 * @brief onchip's version. The CMake project reads its version from this file, so the two always agree.
 */
#pragma once

/// Major version: incompatible API changes.
#define ONCHIP_VERSION_MAJOR 0
/// Minor version: added functionality.
#define ONCHIP_VERSION_MINOR 1
/// Patch version: fixes.
#define ONCHIP_VERSION_PATCH 0
/// The version as one number, MAJOR * 10000 + MINOR * 100 + PATCH.
#define ONCHIP_VERSION (ONCHIP_VERSION_MAJOR * 10000 + ONCHIP_VERSION_MINOR * 100 + ONCHIP_VERSION_PATCH)
