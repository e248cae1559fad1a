// One self-contained HTML page from collbench documents: inline CSS and SVG, no script and nothing
// fetched. Per document its verdict, world and findings; a run's curves (with the thresholds' lines)
// and per-rank and per-node times; a hunt's and a fabric's pair matrices as heatmaps; a preflight's
// phases, each with its own document. Several run documents are also overlaid and compared.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reports/thresholds/thresholds.h"

namespace collbench::report::html {

struct PageDocument {
  std::string name;  // the file, as given
  nlohmann::json doc;
  std::optional<InstanceThresholds> thresholds;  // for the document's instance type, where known
};

std::string html_page(const std::vector<PageDocument>& docs, const std::string& generated_by);

// The instance type a document names: its world's, or for a preflight its first phase's; "" if none.
std::string document_instance_type(const nlohmann::json& doc);

}  // namespace collbench::report::html
