#include "reports/core/radix_median.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "reports/core/stats.h"

namespace collbench::report {

namespace {

constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;
// Doubles as unsigned keys in the same order: negative values flipped whole, others with the
// sign bit set.
std::uint64_t order_key(double x) {
  const auto u = std::bit_cast<std::uint64_t>(x);
  return (u & kSignBit) ? ~u : (u | kSignBit);
}
double from_order_key(std::uint64_t k) { return std::bit_cast<double>((k & kSignBit) ? (k & ~kSignBit) : ~k); }

constexpr std::size_t kSmall = 4096;
constexpr int kShift = 48;

}  // namespace

double radix_median(std::span<const double> v) {
  const std::size_t n = v.size();
  if (n < kSmall) return median(v);
  std::vector<std::uint32_t> count(std::size_t{1} << (64 - kShift));
  for (double x : v) ++count[order_key(x) >> kShift];
  std::size_t k = (n - 1) / 2, digit = 0;  // the lower middle value (the middle one for odd n)
  for (; k >= count[digit]; ++digit) k -= count[digit];
  std::vector<std::uint64_t> bucket;
  bucket.reserve(count[digit]);
  for (double x : v)
    if (const std::uint64_t key = order_key(x); (key >> kShift) == digit) bucket.push_back(key);
  const auto at = bucket.begin() + static_cast<std::ptrdiff_t>(k);
  std::nth_element(bucket.begin(), at, bucket.end());
  const double lower = from_order_key(*at);
  if (n % 2 == 1) return lower;
  // The upper middle value: the least of the rest of the bucket, or of the next bucket with any.
  std::uint64_t upper = std::numeric_limits<std::uint64_t>::max();
  if (k + 1 < bucket.size()) {
    upper = *std::min_element(at + 1, bucket.end());
  } else {
    std::size_t next = digit + 1;
    while (count[next] == 0) ++next;
    for (double x : v)
      if (const std::uint64_t key = order_key(x); (key >> kShift) == next) upper = std::min(upper, key);
  }
  return (lower + from_order_key(upper)) / 2;
}

}  // namespace collbench::report
