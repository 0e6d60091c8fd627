// SPDX-FileCopyrightText: 2026 onchip developers
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What scripts/run answers before it builds anything: onchip-hist's arguments (help, or the sentence saying what
// is wrong) and whether this machine has a GPU to run it on (no driver, a driver older than the toolkit, or no
// device, told apart). Plain C++17: it needs neither nvcc nor a GPU, and reads the driver through dlopen.
//   onchip-hist-preflight ARGS...
// Exit status: 0 the arguments are good and a GPU is there (nothing printed); 2 an argument error (the sentence
// and the usage on standard error); 1 no GPU (the sentence on standard error); 3 help was asked for (printed on
// standard output). ONCHIP_CUDA_VERSION: the toolkit's CUDA_VERSION (1000 * major + 10 * minor) that onchip-hist
// will be built with.
#include <dlfcn.h>

#include <cstdio>
#include <string>

#include "cli.hpp"

#ifndef ONCHIP_CUDA_VERSION
#  define ONCHIP_CUDA_VERSION 0
#endif

namespace {

// Whether the driver sees a device; `installed` and `version` say what was found.
bool driver_has_device(bool& installed, int& version) {
  void* libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  installed = libcuda != nullptr;
  if (!installed) { return false; }
  using init_fn = int (*)(unsigned);
  using version_fn = int (*)(int*);
  using count_fn = int (*)(int*);
  const auto init = reinterpret_cast<init_fn>(dlsym(libcuda, "cuInit"));
  const auto get_version = reinterpret_cast<version_fn>(dlsym(libcuda, "cuDriverGetVersion"));
  const auto get_count = reinterpret_cast<count_fn>(dlsym(libcuda, "cuDeviceGetCount"));
  int devices = 0;
  const bool ok = init != nullptr && get_version != nullptr && get_count != nullptr &&
                  get_version(&version) == 0 && init(0) == 0 && get_count(&devices) == 0 && devices > 0;
  dlclose(libcuda);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const onchip_hist::parsed p = onchip_hist::parse(argc, argv);
  if (!p.error.empty()) {
    std::fprintf(stderr, "onchip-hist: %s\n%s", p.error.c_str(), onchip_hist::usage());
    return 2;
  }
  if (p.opts.help) {
    std::fputs(onchip_hist::usage(), stdout);
    return 3;
  }
  bool installed = false;
  int version = 0;
  if (!driver_has_device(installed, version) || version < ONCHIP_CUDA_VERSION) {
    std::fprintf(stderr, "%s\n", onchip_hist::no_device_message(installed, version, ONCHIP_CUDA_VERSION).c_str());
    return 1;
  }
  return 0;
}
