// The NCCL Inspector line reader: each line of any text is a record, not Inspector output, or a
// broken record with its reason; a record's text lies inside its line and its rank inside its
// communicator.
#include "reports/inspector/inspector_record.h"
#include "tests/fuzz/fuzz_input.h"

using namespace collbench::report::inspector;

namespace {

bool inside(std::string_view part, std::string_view line) {
  return part.empty() || (part.data() >= line.data() && part.data() + part.size() <= line.data() + line.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = collbench::fuzz::text_of(data, size);
  for (;;) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    Record r;
    std::string_view error;
    const LineKind kind = parse_line(line, r, error);
    if (kind == LineKind::Record) {
      FUZZ_CHECK(inside(r.comm_id, line) && inside(r.version, line) && inside(r.hostname, line) &&
                 inside(r.coll, line) && inside(r.timing_source, line));
      FUZZ_CHECK(r.n_ranks >= 1 && r.n_ranks <= kMaxRanks && r.rank >= 0 && r.rank < r.n_ranks);
    }
    if (kind == LineKind::Broken) FUZZ_CHECK(!error.empty());
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return 0;
}
