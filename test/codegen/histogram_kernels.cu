// Instruction contracts of the histogram kernels (release build, ONCHIP_CHECKS=0): nothing in local memory in any
// kernel the device API instantiates (every path: bytes, several channels, shared replicas, 16-bit shared
// counters, global atomics, range levels, weights, segments), and the byte path's counting loop made of shared
// loads and stores (no global atomics; shared ones only when a counter nears 65535), with one PRMT per sample for
// the counter's address.
//
// contract sass * lacks LDL|STL
// contract sass k_byte_loop lacks \bRED\b|\bRED\.|ATOMG|\bATOM\.
// contract sass k_byte_loop has LDS\.U16
// contract sass k_byte_loop has STS\.U16
// contract sass k_byte_loop has \bPRMT R[0-9]+, R[0-9]+(\.reuse)?, 0x55[0-3]4,
// contract sass k_byte_loop has LDG\.E\.EF\.128\.CONSTANT
#include <onchip/histogram.cuh>

#include <cstdint>

namespace {
using byte_job = onchip::detail::histogram_job<1, 1, std::uint8_t, onchip::detail::no_weights,
                                               onchip::detail::plain_binners<1, onchip::bin_identity>, unsigned>;
}

// The byte kernel's counting phase alone (the library's own function): shared loads and stores, and shared
// atomics only on its rare spill branch.
extern "C" __global__ void __launch_bounds__(128, 3) k_byte_loop(byte_job job, onchip::detail::kernel_args a) {
  using onchip::detail::histogram_path;
  const auto spans = onchip::carve(onchip::detail::layout_of(histogram_path::byte_columns, a.call, 1));
  onchip::detail::count_byte_columns(job, a, onchip::detail::start_byte_columns(spans.counters, spans.totals));
}

void instantiate(const std::uint8_t* u8, const std::int8_t* i8, const std::uint16_t* u16, const float* f32,
                 const int* i32, const long long* i64, const double* f64, unsigned* h, unsigned long long* h64,
                 float* hf, const float* lv, const int* offsets) {
  onchip::histogram_even(u8, 10, h, 256, 0, 256);
  onchip::histogram_even(i8, 10, h, 100, -50, 50);
  onchip::histogram_even(u16, 10, h, 1024, 0, 65536);
  onchip::histogram_even(f32, 10, h, 1024, 0.f, 1.f);
  onchip::histogram_even(i32, 10, h64, 10, 0, 1000);
  onchip::histogram_even(i64, 10, h, 100, 0LL, 1000000LL);
  onchip::histogram_even(f64, 10, h, 256, 0.0, 1.0);
  onchip::histogram_range(f32, 10, h, lv, 1025);
  onchip::histogram_range(u8, 10, h, lv, 17);
  onchip::histogram(u16, 10, h, 65536, onchip::bin_identity{});
  unsigned* hs[3] = {h, h, h};
  int bins[3] = {256, 256, 256};
  int lo[3] = {0, 0, 0}, hi[3] = {256, 256, 256};
  onchip::multi_histogram_even<4, 3>(u8, 10, hs, bins, lo, hi);
  float flo[3] = {0, 0, 0}, fhi[3] = {1, 1, 1};
  onchip::multi_histogram_even<3, 3>(f32, 10, hs, bins, flo, fhi);
  onchip::weighted_histogram_even(f32, f32, 10, hf, 1024, 0.f, 1.f);
  onchip::segmented_histogram_even(u8, offsets, 4, h, 256, 0, 256);
}
