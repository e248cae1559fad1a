// Kubernetes object names: what the API server accepts (RFC 1123 labels), checked before a file is
// written, with the reason and a name that would do.
#pragma once

#include <string>

namespace collbench::launch {

// Empty when `name` is an RFC 1123 label of at most `max_length` characters (lower-case letters,
// digits and '-', starting and ending with a letter or digit); else why not.
std::string label_problem(const std::string& name, std::size_t max_length = 63);

// `name` made into such a label: lower case, other characters as '-', trimmed, cut to `max_length`.
std::string as_label(const std::string& name, std::size_t max_length = 63);

}  // namespace collbench::launch
