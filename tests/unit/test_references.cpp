// Every reference pointer a finding prints resolves: docs/references/<file>.md exists and, where
// the pointer names a section, has a heading with exactly that text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "reports/core/references.h"

namespace collbench::report {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(References, EveryPointerResolvesToAHeadingInDocsReferences) {
  const std::string section_mark = " \u00a7 ";
  for (const std::string pointer : ref::kAll) {
    SCOPED_TRACE(pointer);
    ASSERT_EQ(pointer.rfind("references/", 0), 0u);
    const std::size_t mark = pointer.find(section_mark);
    const std::string file = pointer.substr(0, mark);
    const fs::path page = fs::path(COLLBENCH_DOCS_DIR) / file;
    ASSERT_TRUE(fs::exists(page)) << page;
    if (mark == std::string::npos) continue;
    const std::string heading = "\n## " + pointer.substr(mark + section_mark.size()) + "\n";
    EXPECT_NE(("\n" + read(page)).find(heading), std::string::npos) << "no heading '" << heading.substr(1) << "' in "
                                                                   << page;
  }
}

}  // namespace
}  // namespace collbench::report
