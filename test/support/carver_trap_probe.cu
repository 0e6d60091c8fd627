// A program that breaks the carver's checked mode on purpose, run as a child process by the tests (a trap ends
// the CUDA context, so it cannot happen inside the test binary). Built with ONCHIP_CHECKS=1.
//   carver_trap_probe capacity    launches a plan with fewer bytes than it needs (needs a GPU)
//   carver_trap_probe misaligned  carves a host buffer that is not 16-byte aligned (host only)
#include <onchip/smem.cuh>

#include <cstdio>
#include <cstring>

#if !ONCHIP_CHECKS
#  error "carver_trap_probe must be built with ONCHIP_CHECKS=1"
#endif

namespace {
struct plan {
  ONCHIP_HOST_DEVICE auto operator()(onchip::carver& c) const {
    c.take<char>(16);
    return c.take<float>(1000);
  }
};

__global__ void too_small(float* out) {
  auto floats = onchip::carve(plan{});
  floats[threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = floats[999 - threadIdx.x];
}
}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "capacity") == 0) {
    float* out = nullptr;
    if (cudaMalloc(&out, 1000 * sizeof(float)) != cudaSuccess) { return 3; }
    too_small<<<1, 256, onchip::smem_bytes(plan{}) - 16>>>(out);
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      std::printf("probe: kernel failed: %s\n", cudaGetErrorString(e));
      return 1;
    }
    std::printf("probe: kernel ran\n");
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "misaligned") == 0) {
    alignas(16) static unsigned char buffer[64];
    onchip::carver c(buffer + 1, 32);
    std::printf("probe: carver accepted a misaligned base (used %zu)\n", c.used());
    return 0;
  }
  std::fprintf(stderr, "usage: carver_trap_probe capacity|misaligned\n");
  return 2;
}
