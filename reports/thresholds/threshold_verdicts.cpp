#include "reports/thresholds/threshold_verdicts.h"
#include "reports/core/references.h"
#include "reports/core/text_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace collbench::report {
bool row_applies(const ThresholdRow& row, int nodes) {
  if (row.scope == "node") return nodes == 1;
  return nodes >= row.min_nodes && (row.max_nodes == 0 || nodes <= row.max_nodes);
}

namespace {

std::string where(const RunSpan& span) {
  std::string hosts;
  for (std::size_t i = 0; i < span.hosts.size() && i < 4; ++i) hosts += (i ? "," : "") + span.hosts[i];
  if (span.hosts.size() > 4) hosts += fmt::format(",+{} more", span.hosts.size() - 4);
  return fmt::format("{} node{} ({} ranks{})", span.nodes, span.nodes == 1 ? "" : "s", span.ranks,
                     hosts.empty() ? "" : ": " + hosts);
}

// The case judged for a row: the row's size, else the nearest measured size above it; out-of-place
// preferred (the column nccl-tests users quote), then float.
const CaseResult* pick(const std::vector<CaseResult>& cases, const ThresholdRow& row) {
  const CaseResult* best = nullptr;
  const auto rank = [](const CaseResult& c) {
    return (c.placement == Placement::OutOfPlace ? 0 : 2) + (c.dtype == "float" ? 0 : 1);
  };
  for (const auto& c : cases) {
    if (c.op != row.op || c.bytes < row.bytes || c.group.scope != Scope::World) continue;
    if (best == nullptr || c.bytes < best->bytes || (c.bytes == best->bytes && rank(c) < rank(*best))) best = &c;
  }
  return best;
}

std::string reference(const ThresholdRow& row) {
  if (row.scope == "node") return ref::kSingleNode;
  // all_to_all crosses every pair of nodes: the pairwise test finds the pair that holds it back.
  return row.op == "all_to_all" ? ref::kPairwise : ref::kMultiNode;
}

// One node's bandwidth is that node's; a multi-node figure blames no node in particular.
Subject measured_on(const RunSpan& span) {
  if (span.nodes != 1) return Subject::world();
  return Subject::nodes(span.hosts.size() == 1 ? span.hosts : std::vector<std::string>{}, span.rank_ids);
}

}  // namespace

Finding thresholds_skipped(const std::string& why, bool chosen) {
  return {"THRESHOLDS_SKIPPED", chosen ? Tag::Info : Tag::Warn, chosen ? Priority::None : Priority::P2,
          "absolute bandwidth thresholds were not applied: " + why, "", Subject::world()};
}

std::vector<Finding> judge_thresholds(const std::vector<CaseResult>& cases, const InstanceThresholds& t,
                                      const RunSpan& span) {
  std::vector<Finding> out;
  for (const auto& row : t.rows) {
    if (!row_applies(row, span.nodes)) continue;
    if (std::none_of(cases.begin(), cases.end(), [&](const CaseResult& c) { return c.op == row.op; })) continue;
    const std::string expected =
        fmt::format("{} expects busbw >= {:g} GB/s (warn below {:g}; {} threshold in {})", t.instance_type,
                    row.fail_below, row.warn_below, row.basis, std::filesystem::path(t.file).filename().string());
    const CaseResult* c = pick(cases, row);
    if (c == nullptr) {
      out.push_back({"THRESHOLD_SIZE_NOT_REACHED", Tag::Warn, Priority::P2,
                     fmt::format("{} on {}: the sweep stopped below {}, where {} thresholds judge it; rerun with -e {}",
                                 row.op, where(span), size_text(row.bytes), t.instance_type, size_text(row.bytes)),
                     reference(row), Subject::world()});  // the sweep's settings, not a node
      continue;
    }
    const std::string measured =
        fmt::format("{} {} busbw {:.2f} GB/s at {} ({}) on {}", row.op, c->dtype, c->busbw_gbs, size_text(c->bytes),
                    c->placement == Placement::InPlace ? "in-place" : "out-of-place", where(span));
    const Subject subject = measured_on(span);
    if (c->busbw_gbs < row.fail_below)
      out.push_back(
          {"BUSBW_BELOW_THRESHOLD", Tag::Fail, Priority::P1, measured + "; " + expected, reference(row), subject});
    else if (c->busbw_gbs < row.warn_below)
      out.push_back({"BUSBW_LOW", Tag::Warn, Priority::P2, measured + "; " + expected, reference(row), subject});
    else
      out.push_back({"BUSBW_OK", Tag::Pass, Priority::None, measured + "; " + expected, "", subject});
  }
  if (out.empty())
    out.push_back(thresholds_skipped(fmt::format("{} has no row for these collectives on {}", t.file, where(span))));
  return out;
}

}  // namespace collbench::report
