// parse_size ("-b 1M"): refuses with UsageError or returns a value that reads back the same.
#include <cctype>
#include <string>

#include "bench/errors.h"
#include "bench/sizes.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = collbench::fuzz::text_of(data, size);
  std::uint64_t value = 0;
  try {
    value = collbench::parse_size(text, "-b");
  } catch (const collbench::UsageError&) {
    return 0;
  }
  // The plain byte count reads back as the same value.
  FUZZ_CHECK(collbench::parse_size(std::to_string(value), "-b") == value);
  // Units are case-insensitive.
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  FUZZ_CHECK(collbench::parse_size(upper, "-b") == value);
  // A unit multiplies by its power of 1024: the value is a multiple of it.
  const std::size_t digits = text.find_first_not_of("0123456789");
  FUZZ_CHECK(digits != 0);
  if (digits != std::string_view::npos && digits < text.size()) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text[digits])));
    const int shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : unit == 'T' ? 40 : 0;
    FUZZ_CHECK(value % (std::uint64_t{1} << shift) == 0);
    FUZZ_CHECK(collbench::parse_size(text.substr(0, digits), "-b") == (value >> shift));
  }
  return 0;
}
