// Bandwidth of the device fill/verify kernels (kernels/fill_verify.h) per datatype, next to the
// GPU's memory bandwidth: the peak from its attributes (memory clock × bus width × 2, DDR) and a
// device-to-device cudaMemcpy measured in the same run. The kernels fill and check every buffer of
// every collbench case, so a slow or wrong one skews each nccl-backend run.
//
//   fill_bandwidth [--bytes N] [--iters N] [--json FILE]
//
// Exit codes: 0 every check right, 1 a wrong count or a CUDA error, 2 bad usage, 77 no GPU.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/dtype.h"
#include "bench/errors.h"
#include "kernels/fill_verify.h"

namespace {

using collbench::DType;
using collbench::RunError;

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw RunError(fmt::format("{} failed: {}", call, cudaGetErrorString(e)));
}
#define CHECK(call) check((call), #call)

// Events around `iters` calls of `body` on `stream`; seconds per call.
template <class F> double time_per_call(cudaStream_t stream, int iters, F body) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  body();  // warm-up: first launch of each kernel loads its module
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < iters; ++i) body();
  CHECK(cudaEventRecord(stop, stream));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return ms / 1e3 / iters;
}

std::uint64_t parse_bytes(const std::string& s) {
  std::size_t end = 0;
  const double v = std::stod(s, &end);
  std::uint64_t mult = 1;
  if (end < s.size()) {
    switch (s[end]) {
      case 'K': mult = 1ull << 10; break;
      case 'M': mult = 1ull << 20; break;
      case 'G': mult = 1ull << 30; break;
      default: throw std::invalid_argument(s);
    }
    if (end + 1 != s.size()) throw std::invalid_argument(s);
  }
  if (v <= 0) throw std::invalid_argument(s);
  return static_cast<std::uint64_t>(v * static_cast<double>(mult));
}

int run(std::uint64_t bytes, int iters, const std::string& json_path) {
  int ngpu = 0;
  if (cudaGetDeviceCount(&ngpu) != cudaSuccess || ngpu == 0) {
    std::printf("SKIPPED: no GPU visible (cudaGetDeviceCount: %s)\n", cudaGetErrorString(cudaGetLastError()));
    return 77;
  }
  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0, bus_bits = 0;
  // Attributes, not cudaDeviceProp fields: CUDA 13 dropped prop.memoryClockRate.
  const bool have_peak = cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess &&
                         cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0) == cudaSuccess &&
                         clock_khz > 0 && bus_bits > 0;
  cudaGetLastError();
  const double peak = have_peak ? 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9 : 0;  // GB/s, decimal

  void *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // A copy reads and writes every byte: 2 × bytes of traffic.
  const double copy_s =
      time_per_call(stream, iters, [&] { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream)); });
  const double copy = 2.0 * bytes / copy_s / 1e9;

  std::printf("# device 0: %s (sm_%d%d), %.1f GiB, buffer %.3f GiB, %d iterations\n", prop.name, prop.major,
              prop.minor, prop.totalGlobalMem / 1073741824.0, bytes / 1073741824.0, iters);
  if (have_peak)
    std::printf("# HBM peak %.0f GB/s (memory clock %d MHz x %d-bit bus x 2)\n", peak, clock_khz / 1000, bus_bits);
  else
    std::printf("# HBM peak: not reported by this driver (cudaDevAttrMemoryClockRate/GlobalMemoryBusWidth)\n");
  std::printf("# device-to-device cudaMemcpy %.0f GB/s (read + write)%s\n", copy,
              have_peak ? fmt::format(", {:.0f}% of peak", 100 * copy / peak).c_str() : "");
  std::printf("%-9s %10s %6s %6s %10s %6s %6s %10s %6s %6s  %s\n", "dtype", "fill_input", "%peak", "%copy", "fill_value",
              "%peak", "%copy", "count_wrong", "%peak", "%copy", "check");

  auto pct = [&](double gbs, double ref) { return ref > 0 ? 100 * gbs / ref : 0.0; };
  nlohmann::json rows = nlohmann::json::array();
  bool all_right = true;
  for (const collbench::DTypeInfo& d : collbench::all_dtypes()) {
    const std::uint64_t count = bytes / d.size;
    const collbench::pattern::Spec spec{collbench::Coll::AllReduce, collbench::RedOp::Sum, 7, 0, 1, 0, count};
    std::int64_t wrong_after_fill = -1;
    const double input_s =
        time_per_call(stream, iters, [&] { collbench::device::fill_input(d.type, a, count, spec, stream); });
    const double value_s = time_per_call(
        stream, iters, [&] { collbench::device::fill_value(d.type, b, count, collbench::pattern::kPoison, stream); });
    const double verify_s = time_per_call(
        stream, iters, [&] { wrong_after_fill = collbench::device::count_wrong(d.type, a, count, spec, stream); });
    // The poisoned buffer must count as wrong everywhere, or the check could not see a fault.
    const std::int64_t wrong_poison = collbench::device::count_wrong(d.type, b, count, spec, stream);
    const bool right = wrong_after_fill == 0 && wrong_poison == static_cast<std::int64_t>(count);
    all_right = all_right && right;
    const double g_in = bytes / input_s / 1e9, g_val = bytes / value_s / 1e9, g_ver = bytes / verify_s / 1e9;
    const std::string name(d.name);
    std::printf("%-9s %10.0f %6.1f %6.1f %10.0f %6.1f %6.1f %10.0f %6.1f %6.1f  %s\n", name.c_str(), g_in,
                pct(g_in, peak),
                pct(g_in, copy), g_val, pct(g_val, peak), pct(g_val, copy), g_ver, pct(g_ver, peak), pct(g_ver, copy),
                right ? "ok"
                      : fmt::format("WRONG: {} wrong after fill (want 0), {} of {} poisoned seen", wrong_after_fill,
                                    wrong_poison, count)
                            .c_str());
    rows.push_back({{"dtype", name},
                    {"count", count},
                    {"fill_input_gbs", g_in},
                    {"fill_value_gbs", g_val},
                    {"count_wrong_gbs", g_ver},
                    {"wrong_after_fill", wrong_after_fill},
                    {"wrong_in_poisoned", wrong_poison},
                    {"right", right}});
  }
  std::printf("%s\n", all_right ? "fill_bandwidth: every check right"
                                 : "fill_bandwidth: FAILED: a verify count was wrong (see the check column)");
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));

  if (!json_path.empty()) {
    nlohmann::json doc{{"device", prop.name},
                       {"sm", fmt::format("{}{}", prop.major, prop.minor)},
                       {"bytes", bytes},
                       {"iters", iters},
                       {"hbm_peak_gbs", have_peak ? nlohmann::json(peak) : nlohmann::json(nullptr)},
                       {"memory_clock_khz", clock_khz},
                       {"bus_width_bits", bus_bits},
                       {"d2d_copy_gbs", copy},
                       {"dtypes", rows},
                       {"right", all_right}};
    std::ofstream f(json_path);
    f << doc.dump(2) << "\n";
    if (!f) throw RunError("cannot write " + json_path);
  }
  return all_right ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t bytes = 1ull << 30;
  int iters = 10;
  std::string json_path;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (i + 1 >= argc) throw std::invalid_argument(arg);
      if (arg == "--bytes") bytes = parse_bytes(argv[++i]);
      else if (arg == "--iters") iters = std::stoi(argv[++i]);
      else if (arg == "--json") json_path = argv[++i];
      else throw std::invalid_argument(arg);
    }
    if (iters < 1 || bytes < 8) throw std::invalid_argument("--iters/--bytes");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fill_bandwidth: bad argument (%s)\nusage: %s [--bytes N[K|M|G]] [--iters N] [--json FILE]\n",
                 e.what(), argv[0]);
    return 2;
  }
  try {
    return run(bytes, iters, json_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fill_bandwidth: %s\n", e.what());
    return 1;
  }
}
