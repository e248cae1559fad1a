#include "reports/html/page.h"

#include <fmt/format.h>

#include <cmath>

#include "reports/core/json_fields.h"
#include "reports/html/sections.h"
#include "reports/html/svg.h"

namespace collbench::report::html {

using nlohmann::json;

namespace {

// Okabe-Ito colours for series and tags (told apart with colour-blindness too), PuOr bins for the
// heatmaps; dark mode and print change the variables only.
constexpr const char* kStyle = R"css(
:root { --bg: #ffffff; --fg: #1b1b1b; --muted: #5f5f5f; --grid: #e3e3e3; --panel: #f6f6f6;
  --pass: #007a5a; --fail: #c0392b; --warn: #a86b00; --info: #0060a0;
  --s0: #0072B2; --s1: #D55E00; --s2: #009E73; --s3: #CC79A7; --s4: #E69F00; --s5: #56B4E9; --s6: #8a7c00; --s7: #555555;
  --h0: #b35806; --h1: #f1a340; --h2: #fee0b6; --h3: #d8daeb; --h4: #998ec3; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #16181c; --fg: #e8e8e8; --muted: #a8a8a8; --grid: #33363c; --panel: #1f2227;
    --pass: #3fcf9f; --fail: #ff7b6b; --warn: #f0b840; --info: #6cb8ff; --s7: #bbbbbb; --s6: #e0d060; } }
body { font: 15px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); margin: 0 auto; max-width: 1100px;
  padding: 1em 1.5em; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid var(--grid); padding-bottom: .2em; } h3 { font-size: 1.05em; }
section.document { margin-bottom: 2.5em; }
figure { margin: 1em 0 .3em; } figcaption, .note { color: var(--muted); font-size: .9em; }
svg.chart { max-width: 100%; height: auto; display: block; }
svg.chart text { fill: var(--fg); font-size: 12px; } svg.chart .chart-title { font-weight: 600; font-size: 13px; }
svg.chart .tick, svg.chart .legend { fill: var(--muted); } svg.chart .tick.marked { fill: var(--fail); font-weight: 700; }
svg.chart .axis { stroke: var(--fg); } svg.chart .grid { stroke: var(--grid); }
.series polyline { fill: none; stroke-width: 2; } .series line { stroke-width: 3; }
.s0 { stroke: var(--s0); fill: var(--s0); } .s1 { stroke: var(--s1); fill: var(--s1); } .s2 { stroke: var(--s2); fill: var(--s2); }
.s3 { stroke: var(--s3); fill: var(--s3); } .s4 { stroke: var(--s4); fill: var(--s4); } .s5 { stroke: var(--s5); fill: var(--s5); }
.s6 { stroke: var(--s6); fill: var(--s6); } .s7 { stroke: var(--s7); fill: var(--s7); }
.series polyline { fill: none; } svg.chart .series text { stroke: none; fill: var(--fg); } .s1 polyline { stroke-dasharray: 6 3; } .s3 polyline { stroke-dasharray: 2 3; }
.threshold line { stroke-width: 1.5; stroke-dasharray: 5 4; } .threshold.fail line { stroke: var(--fail); }
.threshold.warn line { stroke: var(--warn); } .threshold.fail text { fill: var(--fail); } .threshold.warn text { fill: var(--warn); }
rect.bar { fill: var(--s0); } rect.bar.marked { fill: var(--fail); }
rect.h0 { fill: var(--h0); } rect.h1 { fill: var(--h1); } rect.h2 { fill: var(--h2); } rect.h3 { fill: var(--h3); }
rect.h4 { fill: var(--h4); } rect.link { fill: none; stroke: var(--fail); stroke-width: 3; }
svg.chart text.cell { fill: #1b1b1b; font-size: 10px; } svg.chart text.cell.dark { fill: #ffffff; }
table { border-collapse: collapse; margin: .5em 0; font-size: .92em; }
th, td { text-align: left; padding: .25em .6em; border-bottom: 1px solid var(--grid); vertical-align: top; }
table.world th { color: var(--muted); font-weight: 500; }
details.numbers { margin: .2em 0 1em; } details.numbers summary { cursor: pointer; color: var(--muted); }
.tag { font-weight: 700; font-family: ui-monospace, monospace; } .tag-pass { color: var(--pass); }
.tag-fail { color: var(--fail); } .tag-warn { color: var(--warn); } .tag-info { color: var(--info); }
.verdict { font-size: 1.15em; padding: .4em .8em; background: var(--panel); border-left: 4px solid var(--info); }
.verdict.fail { border-color: var(--fail); } .verdict.pass { border-color: var(--pass); }
@media print { :root { --bg: #fff; --fg: #000; --muted: #444; --grid: #ccc; --panel: #f4f4f4; }
  body { max-width: none; font-size: 11pt; } section.document, figure { break-inside: avoid; }
  details.numbers::details-content { content-visibility: visible; display: block; }
  details.numbers summary { display: none; } }
)css";

std::string command_of(const json& doc) {
  const std::string schema = string_at(doc, "schema");
  for (const char* c : {"run", "hunt", "fabric", "preflight", "inspector"})
    if (schema == fmt::format("collbench.{}/1", c)) return c;
  return "";
}

std::string verdict_line(const json& doc) {
  const json v = object_at(doc, "verdict");
  const double exit_code = number_at(v, "exit_code");
  const int code = std::isfinite(exit_code) ? static_cast<int>(exit_code) : -1;
  const char* what = code == 0 ? "pass" : code == 3 ? "[FAIL] found" : code == 1 ? "could not run" : "no verdict";
  return fmt::format("<p class=\"verdict {}\">Exit code {}: {}; issues found: {}{}</p>", code == 0 ? "pass" : "fail", code,
                     what, string_at(v, "issues_found"),
                     doc.contains("complete") && doc["complete"] == false ? "; <strong>incomplete</strong>" : "");
}

std::string document_body(const json& doc, const std::optional<InstanceThresholds>& thresholds) {
  const std::string command = command_of(doc);
  std::string s;
  if (command == "run") s += run_section(doc, thresholds);
  if (command == "hunt") s += hunt_section(doc);
  if (command == "fabric") s += fabric_section(doc);
  if (command == "inspector") s += inspector_section(doc);
  if (command == "preflight") {
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : array_at(doc, "phases"))
      rows.push_back({escape(string_at(p, "name")), escape(string_at(p, "status")), escape(string_at(p, "reason")),
                      fmt::format("{:.1f}", number_at(p, "wall_s"))});
    s += "<h3>Phases</h3>" + table({"phase", "status", "reason", "wall s"}, rows, "phases", true);
    for (const auto& p : array_at(doc, "phases"))
      if (p.contains("document") && p["document"].is_object() && !command_of(p["document"]).empty())
        s += "<h3>Phase: " + escape(string_at(p, "name")) + "</h3>" + document_body(p["document"], thresholds);
  }
  return s;
}

}  // namespace

std::string document_instance_type(const json& doc) {
  if (const std::string t = string_at(object_at(doc, "world"), "instance_type"); !t.empty()) return t;
  for (const auto& p : array_at(doc, "phases"))
    if (const std::string t = document_instance_type(object_at(p, "document")); !t.empty()) return t;
  return "";
}

std::string html_page(const std::vector<PageDocument>& docs, const std::string& generated_by) {
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                  "<meta name=\"color-scheme\" content=\"light dark\"><title>collbench report</title><style>" +
                  std::string(kStyle) + "</style></head><body><h1>collbench report</h1>";
  s += "<p class=\"note\">" + escape(generated_by) + "</p>";
  std::vector<std::pair<std::string, const json*>> runs;
  for (const auto& d : docs) {
    const std::string command = command_of(d.doc);
    if (command == "run") runs.push_back({d.name, &d.doc});
    s += fmt::format("<section class=\"document\"><h2>{}: <code>{}</code></h2>", escape(command), escape(d.name));
    s += verdict_line(d.doc) + world_section(d.doc) + "<h3>Findings</h3>" + findings_section(d.doc);
    s += document_body(d.doc, d.thresholds) + "</section>";
  }
  if (runs.size() >= 2) s += comparison_section(runs);
  return s + "</body></html>\n";
}

}  // namespace collbench::report::html
