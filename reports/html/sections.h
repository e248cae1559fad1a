// The parts of the page, each a function of one document (or two, for a comparison) to HTML text.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "reports/thresholds/thresholds.h"

namespace collbench::report::html {

std::string findings_section(const nlohmann::json& doc);
std::string world_section(const nlohmann::json& doc);
// Busbw against size per op and scope, the thresholds' lines where a row applies, and the per-rank
// and per-node median times of each op's largest case.
std::string run_section(const nlohmann::json& doc, const std::optional<InstanceThresholds>& thresholds);
std::string hunt_section(const nlohmann::json& doc);
std::string fabric_section(const nlohmann::json& doc);
// A collbench.inspector/1 document: rank x time maps of how late each rank arrived, busbw over time.
std::string inspector_section(const nlohmann::json& doc);
// Curves of several runs overlaid (the first is the base) and the comparison's verdict per case.
std::string comparison_section(const std::vector<std::pair<std::string, const nlohmann::json*>>& runs);

// A details element holding a table: header cells, then rows of cells (already escaped); `open`
// shows it without a click.
std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                  const std::string& summary, bool open = false);

}  // namespace collbench::report::html
