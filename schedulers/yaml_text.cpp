#include "schedulers/yaml_text.h"

#include <cctype>

namespace collbench::launch {
namespace {

using json = nlohmann::ordered_json;

// Keys made of these characters need no quotes (Kubernetes keys such as nvidia.com/gpu).
bool plain_key(const std::string& k) {
  if (k.empty() || !std::isalpha(static_cast<unsigned char>(k[0]))) return false;
  for (char c : k)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '/' && c != '-' && c != '_') return false;
  return true;
}

std::string scalar(const json& v) { return v.is_string() ? json(v.get<std::string>()).dump() : v.dump(); }

bool inline_value(const json& v) { return !v.is_structured() || v.empty(); }

void emit(const json& v, const std::string& indent, std::string& out);

// A value after "key:" or "- ": on the same line when it is a scalar or empty.
void emit_after(const json& v, const std::string& indent, std::string& out) {
  if (inline_value(v)) {
    out += " " + scalar(v) + "\n";
  } else {
    out += "\n";
    emit(v, indent, out);
  }
}

void emit(const json& v, const std::string& indent, std::string& out) {
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) {
      out += indent + (plain_key(k) ? k : json(k).dump()) + ":";
      emit_after(x, indent + "  ", out);
    }
  } else if (v.is_array()) {
    for (const auto& x : v) {
      if (x.is_object() && !x.empty()) {
        // The first key on the dash's line, the rest aligned under it.
        std::string item;
        emit(x, indent + "  ", item);
        out += indent + "- " + item.substr(indent.size() + 2);
      } else {
        out += indent + "-";
        emit_after(x, indent + "  ", out);
      }
    }
  } else {
    out += indent + scalar(v) + "\n";
  }
}

}  // namespace

std::string to_yaml(const json& doc) {
  std::string out;
  emit(doc, "", out);
  return out;
}

}  // namespace collbench::launch
