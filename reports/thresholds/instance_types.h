// Which EC2 instance types can attach an Elastic Fabric Adapter at all. Only some sizes of a family
// do (g4dn.8xlarge does, g4dn.xlarge does not), so the table holds sizes, not families.
#pragma once

#include <string>
#include <string_view>

namespace collbench::report {

// "p4d" for "p4d.24xlarge", "p6-b200" for "p6-b200.48xlarge"; empty when there is no ".size" part.
std::string instance_family(std::string_view instance_type);

// EC2 names are lower case; matching ignores case: "P5.48XLARGE" -> "p5.48xlarge".
std::string normalized_instance_type(std::string_view instance_type);

// True when AWS lists this exact type (case-insensitive) as supporting EFA.
bool efa_capable(std::string_view instance_type);

// True when `text` has the shape of an EC2 instance type ("c5n.18xlarge", "c7i.metal-48xl",
// "u7i-12tb.224xlarge"), so that a DMI product name like "Standard PC (Q35 + ICH9, 2009)" or
// "HVM domU" is not taken for one.
bool looks_like_instance_type(std::string_view text);

}  // namespace collbench::report
