#include <gtest/gtest.h>

#include "bench/errors.h"
#include "bench/sizes.h"

namespace collbench {

TEST(ParseSize, PlainAndSuffixed) {
  EXPECT_EQ(parse_size("8", "-b"), 8u);
  EXPECT_EQ(parse_size("64K", "-b"), 64u * 1024);
  EXPECT_EQ(parse_size("1m", "-b"), 1u << 20);
  EXPECT_EQ(parse_size("8G", "-e"), 8ull << 30);
  EXPECT_EQ(parse_size("2MiB", "-e"), 2u << 20);
  EXPECT_EQ(parse_size("3KB", "-e"), 3u * 1024);
  EXPECT_EQ(parse_size("1T", "-e"), 1ull << 40);
  EXPECT_EQ(parse_size("0", "-b"), 0u);
}

TEST(ParseSize, RejectsGarbageNamingTheOption) {
  for (const char* bad : {"10X", "", "K", "-1", "1.5M", "1 M", "99999999999999999999", "17179869184G"}) {
    try {
      parse_size(bad, "-b");
      FAIL() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("-b"), std::string::npos) << e.what();
    }
  }
}

TEST(SweepSizes, FactorAndStepLikeNcclTests) {
  EXPECT_EQ(sweep_sizes(8, 128, 2, 0), (std::vector<std::uint64_t>{8, 16, 32, 64, 128}));
  EXPECT_EQ(sweep_sizes(8, 100, 4, 0), (std::vector<std::uint64_t>{8, 32}));
  EXPECT_EQ(sweep_sizes(1024, 4096, 2, 1024), (std::vector<std::uint64_t>{1024, 2048, 3072, 4096}));
  EXPECT_EQ(sweep_sizes(64, 64, 2, 0), (std::vector<std::uint64_t>{64}));
  EXPECT_EQ(sweep_sizes(0, 64, 2, 0), (std::vector<std::uint64_t>{0}));
  EXPECT_TRUE(sweep_sizes(128, 64, 2, 0).empty());
}

TEST(FormatBytes, ReadableUnits) {
  EXPECT_EQ(size_text(100), "100 B");
  EXPECT_EQ(size_text(1024), "1 KiB");
  EXPECT_EQ(size_text(8ull << 30), "8 GiB");
  EXPECT_EQ(size_text(3000), "3000 B");          // exact below 1 MiB
  EXPECT_EQ(size_text(1536 * 1024), "1536 KiB");  // exact in four digits
  EXPECT_EQ(size_text(1572865), "1.5 MiB");
  // Past four digits of its exact unit, one decimal of the largest unit: MemAvailable in KiB.
  EXPECT_EQ(size_text(24047888ull * 1024), "22.9 GiB");
  EXPECT_EQ(size_text((5ull << 30) + 1), "5.0 GiB");
  EXPECT_EQ(size_text(10000ull << 20), "9.8 GiB");
  EXPECT_EQ(size_text(9999ull << 20), "9999 MiB");
  EXPECT_EQ(size_text(~0ull), "16.0 EiB");
}

}  // namespace collbench
