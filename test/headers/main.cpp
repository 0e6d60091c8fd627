// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Linking succeeded, so no public header defines a non-inline entity; nothing left to run.
int main() { return 0; }
