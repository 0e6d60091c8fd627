// Macros that break headers which use these common short names as identifiers.
#pragma once
#define I CANNOT_USE_I_AS_AN_IDENTIFIER
#define small CANNOT_USE_small_AS_AN_IDENTIFIER
#define B0 CANNOT_USE_B0_AS_AN_IDENTIFIER
#define min(a, b) CANNOT_USE_min_AS_A_FUNCTION_NAME
#define max(a, b) CANNOT_USE_max_AS_A_FUNCTION_NAME
