// The nccl-tests text parser, and analyze's reading of nccl-tests text into results, on any text.
// Neither documents an error for bad text (bad rows become `malformed`); the analyze reader throws
// std::invalid_argument only when a hint contradicts the file.
#include <algorithm>
#include <stdexcept>

#include "reports/analyze/analyze_input.h"
#include "reports/analyze/nccl_text_parser.h"
#include "reports/core/json_report.h"
#include "tests/fuzz/fuzz_input.h"

using namespace collbench::report;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = collbench::fuzz::text_of(data, size);
  const ParsedOutput out = parse_nccl_tests_output(text);
  const long lines = std::count(text.begin(), text.end(), '\n') + 1;
  for (const MalformedLine& m : out.malformed) FUZZ_CHECK(m.line >= 1 && m.line <= lines);

  // Half the inputs with hints (a node count and an op): contradicting the file is the one
  // documented refusal.
  const ResultHints hints = size % 2 ? ResultHints{2, "all_reduce"} : ResultHints{};
  try {
    const ExternalResults r = from_nccl_tests_text(text, "fuzz.txt", hints);
    FUZZ_CHECK(r.malformed.size() == out.malformed.size());
    // Whatever the text held, what was read from it goes into a JSON document (analyze --json).
    nlohmann::json doc{{"notes", r.notes}, {"hosts", r.span.hosts}};
    for (const CaseResult& c : r.cases) doc["cases"].push_back(to_json(c));
    for (const MalformedLine& m : r.malformed) doc["malformed"].push_back(m.text);
    for (const ParsedTable& t : out.tables) doc["collectives"].push_back(t.collective);
    doc.dump();
  } catch (const std::invalid_argument&) {
    FUZZ_CHECK(hints.nodes != 0);
  }
  return 0;
}
