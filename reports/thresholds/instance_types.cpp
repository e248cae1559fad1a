#include "reports/thresholds/instance_types.h"

#include <algorithm>
#include <cctype>
#include <iterator>

namespace collbench::report {
namespace {

// EFA-capable sizes. Sources:
//  - AWS, "Supported instance types" in the EC2 User Guide's EFA chapter:
//    https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-instance-types
//    (AWS points to `aws ec2 describe-instance-types --filters
//    Name=network-info.efa-supported,Values=true` as the authoritative per-Region list).
//  - The non-metal sizes below are that API's answer as generated into eksctl
//    (github.com/eksctl-io/eksctl, pkg/utils/instance/instance_types.go, field EFASupported,
//    commit 0027506e8f395e6e9216270328aee228ba8eae07). That file leaves out bare-metal sizes and
//    UltraServer-only types, hence the metal rule below and the few additions marked.
// Note: inf2 is not EFA-capable there (every inf2 size says EFASupported: false); c6a.32xlarge and
// m6a.32xlarge, listed in an older copy of the AWS page, are not either, so they are left out.
// clang-format off
constexpr std::string_view kEfaSizes[] = {
    // Accelerated computing.
    "dl1.24xlarge",  // older AWS page (retired type, absent from the API dump)
    "dl2q.24xlarge", "f2.48xlarge",
    "g4dn.8xlarge", "g4dn.12xlarge", "g4dn.16xlarge",
    "g5.8xlarge", "g5.12xlarge", "g5.16xlarge", "g5.24xlarge", "g5.48xlarge",
    "g6.8xlarge", "g6.12xlarge", "g6.16xlarge", "g6.24xlarge", "g6.48xlarge",
    "g6e.8xlarge", "g6e.12xlarge", "g6e.16xlarge", "g6e.24xlarge", "g6e.48xlarge",
    "g7.8xlarge", "g7.12xlarge", "g7.24xlarge", "g7.48xlarge",
    "g7e.8xlarge", "g7e.12xlarge", "g7e.24xlarge", "g7e.48xlarge",
    "gr6.8xlarge",
    "inf1.24xlarge",
    "p3dn.24xlarge", "p4d.24xlarge", "p4de.24xlarge",
    "p5.4xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge",
    "p6-b200.48xlarge", "p6-b300.48xlarge",
    "p6e-gb200.36xlarge",  // UltraServer-only; 4 EFA per instance (shared/published-numbers.md)
    "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge",
    "trn2u.48xlarge",  // UltraServer variant of trn2.48xlarge
    "vt1.24xlarge",
    // Compute optimized.
    "c5n.9xlarge", "c5n.18xlarge",
    "c6a.48xlarge", "c6gn.16xlarge", "c6i.32xlarge", "c6id.32xlarge", "c6in.32xlarge",
    "c7a.48xlarge", "c7g.16xlarge", "c7gd.16xlarge", "c7gn.16xlarge", "c7i.48xlarge",
    "c8a.48xlarge",
    "c8g.24xlarge", "c8g.48xlarge",
    "c8gb.16xlarge", "c8gb.24xlarge", "c8gb.48xlarge",
    "c8gd.24xlarge", "c8gd.48xlarge",
    "c8gn.16xlarge", "c8gn.24xlarge", "c8gn.48xlarge",
    "c8i.48xlarge", "c8i.96xlarge",
    "c8ib.48xlarge", "c8ib.96xlarge",
    "c8id.48xlarge", "c8id.96xlarge",
    "c8in.48xlarge", "c8in.96xlarge",
    "c9g.48xlarge", "c9gd.48xlarge",
    // General purpose.
    "m5dn.24xlarge", "m5n.24xlarge", "m5zn.12xlarge",
    "m6a.48xlarge", "m6i.32xlarge", "m6id.32xlarge", "m6idn.32xlarge", "m6in.32xlarge",
    "m7a.48xlarge", "m7g.16xlarge", "m7gd.16xlarge", "m7i.48xlarge",
    "m8a.48xlarge", "m8azn.24xlarge",
    "m8g.24xlarge", "m8g.48xlarge",
    "m8gb.16xlarge", "m8gb.24xlarge", "m8gb.48xlarge",
    "m8gd.24xlarge", "m8gd.48xlarge",
    "m8gn.16xlarge", "m8gn.24xlarge", "m8gn.48xlarge",
    "m8i.48xlarge", "m8i.96xlarge",
    "m8ib.48xlarge", "m8ib.96xlarge",
    "m8id.48xlarge", "m8id.96xlarge",
    "m8idb.48xlarge", "m8idb.96xlarge",
    "m8idn.48xlarge", "m8idn.96xlarge",
    "m8in.48xlarge", "m8in.96xlarge",
    "m9g.48xlarge", "m9gd.48xlarge",
    // Memory optimized.
    "r5dn.24xlarge", "r5n.24xlarge",
    "r6a.48xlarge", "r6i.32xlarge", "r6id.32xlarge", "r6idn.32xlarge", "r6in.32xlarge",
    "r7a.48xlarge", "r7g.16xlarge", "r7gd.16xlarge", "r7i.48xlarge", "r7iz.32xlarge",
    "r8a.48xlarge",
    "r8g.24xlarge", "r8g.48xlarge",
    "r8gb.16xlarge", "r8gb.24xlarge", "r8gb.48xlarge",
    "r8gd.24xlarge", "r8gd.48xlarge",
    "r8gn.16xlarge", "r8gn.24xlarge", "r8gn.48xlarge",
    "r8i.48xlarge", "r8i.96xlarge",
    "r8ib.48xlarge", "r8ib.96xlarge",
    "r8id.48xlarge", "r8id.96xlarge",
    "r8idb.48xlarge", "r8idb.96xlarge",
    "r8idn.48xlarge", "r8idn.96xlarge",
    "r8in.48xlarge", "r8in.96xlarge",
    "r9g.48xlarge", "r9gd.48xlarge",
    "u7i-6tb.112xlarge", "u7i-8tb.112xlarge", "u7i-12tb.224xlarge",
    "u7in-16tb.224xlarge", "u7in-24tb.224xlarge", "u7in-32tb.224xlarge",
    "x2idn.32xlarge", "x2iedn.32xlarge", "x2iezn.12xlarge",
    "x8aedz.24xlarge",
    "x8g.24xlarge", "x8g.48xlarge",
    "x8i.48xlarge", "x8i.64xlarge", "x8i.96xlarge",
    // Storage optimized.
    "i3en.12xlarge", "i3en.24xlarge",
    "i4g.16xlarge", "i4i.32xlarge",
    "i7i.24xlarge", "i7i.48xlarge", "i7ie.48xlarge",
    "i8g.48xlarge", "i8ge.48xlarge",
    "im4gn.16xlarge",
    // High-performance computing.
    "hpc6a.48xlarge", "hpc6id.32xlarge",
    "hpc7a.12xlarge", "hpc7a.24xlarge", "hpc7a.48xlarge", "hpc7a.96xlarge",
    "hpc7g.4xlarge", "hpc7g.8xlarge", "hpc7g.16xlarge",
    "hpc8a.96xlarge",
};
// clang-format on

bool listed(std::string_view type) {
  return std::find(std::begin(kEfaSizes), std::end(kEfaSizes), type) != std::end(kEfaSizes);
}

bool family_has_efa(std::string_view family) {
  return std::any_of(std::begin(kEfaSizes), std::end(kEfaSizes), [&](std::string_view t) {
    return t.size() > family.size() && t.substr(0, family.size()) == family && t[family.size()] == '.';
  });
}

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace

std::string instance_family(std::string_view instance_type) {
  const auto dot = instance_type.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == instance_type.size()) return "";
  return normalized_instance_type(instance_type.substr(0, dot));
}

bool efa_capable(std::string_view instance_type) {
  const std::string type = normalized_instance_type(instance_type);
  if (listed(type)) return true;
  const std::string family = instance_family(type);
  if (family.empty()) return false;
  const std::string_view size = std::string_view(type).substr(family.size() + 1);
  // Bare metal (not in the generated list; derived, matching every metal size on the AWS page):
  // "metal" is EFA-capable when some size of the family is; "metal-48xl" when the 48xlarge is.
  if (size == "metal") return family_has_efa(family);
  if (size.rfind("metal-", 0) == 0 && size.size() > 8 && size.substr(size.size() - 2) == "xl")
    return listed(family + "." + std::string(size.substr(6, size.size() - 8)) + "xlarge");
  return false;
}

std::string normalized_instance_type(std::string_view instance_type) {
  std::string out(instance_type);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool looks_like_instance_type(std::string_view text) {
  const auto dot = text.find('.');
  if (dot == std::string_view::npos || dot == 0 || text.find('.', dot + 1) != std::string_view::npos) return false;
  const std::string_view family = text.substr(0, dot), size = text.substr(dot + 1);
  const auto ok_char = [](unsigned char c) { return std::islower(c) || std::isdigit(c) || c == '-'; };
  if (!std::islower(static_cast<unsigned char>(family[0])) || !std::all_of(family.begin(), family.end(), ok_char))
    return false;
  for (std::string_view s : {"nano", "micro", "small", "medium", "large", "xlarge", "metal"})
    if (size == s) return true;
  if (size.size() > 6 && size.substr(size.size() - 6) == "xlarge") return is_digits(size.substr(0, size.size() - 6));
  if (size.rfind("metal-", 0) == 0 && size.size() > 8 && size.substr(size.size() - 2) == "xl")
    return is_digits(size.substr(6, size.size() - 8));
  return false;
}

}  // namespace collbench::report
