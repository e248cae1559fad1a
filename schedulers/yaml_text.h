// A JSON value (keys in the order they were set) as a YAML block document, for files people read and edit (Kubernetes manifests).
// Every string is double-quoted with JSON's escapes, which YAML reads the same way, so no value can
// turn into a number, a boolean or a null ("on", "1e3", "null", "0755").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace collbench::launch {

std::string to_yaml(const nlohmann::ordered_json& doc);

}  // namespace collbench::launch
