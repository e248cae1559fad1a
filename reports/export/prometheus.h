// Prometheus text exposition (format 0.0.4) of a MetricSet, for node_exporter's textfile collector:
// one HELP and TYPE per family, families in a fixed order, no timestamps (the collector refuses them).
#pragma once

#include <string>

#include "reports/export/metrics.h"

namespace collbench::report {

std::string prometheus_text(const MetricSet& set);

// A label value as the exposition format writes it: backslash, double quote and newline escaped.
std::string prometheus_label_value(const std::string& value);

}  // namespace collbench::report
