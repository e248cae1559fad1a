// CloudWatch embedded metric format: one JSON object per line, each a MetricRecord: its labels as
// the dimensions (string members), its values as metrics (number members) and an `_aws` member
// that declares them, per
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
#pragma once

#include <string>

#include "reports/export/metrics.h"

namespace collbench::report {

inline constexpr const char* kEmfNamespace = "collbench";

// `now_ms` stamps a record whose document has no start time.
std::string emf_lines(const MetricSet& set, const std::string& cloudwatch_namespace, long long now_ms);

}  // namespace collbench::report
