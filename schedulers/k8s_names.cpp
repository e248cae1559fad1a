#include "schedulers/k8s_names.h"

#include <fmt/format.h>

#include <cctype>

namespace collbench::launch {
namespace {

bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

}  // namespace

std::string label_problem(const std::string& name, std::size_t max_length) {
  if (name.empty()) return "it is empty";
  if (name.size() > max_length) return fmt::format("it has {} characters, more than {}", name.size(), max_length);
  for (char c : name)
    if (!alnum(c) && c != '-') return fmt::format("'{}' is not a lower-case letter, a digit or '-'", c);
  if (!alnum(name.front()) || !alnum(name.back())) return "it must start and end with a letter or digit";
  return "";
}

std::string as_label(const std::string& name, std::size_t max_length) {
  std::string out;
  for (char c : name) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out += alnum(l) ? l : '-';
  }
  if (out.size() > max_length) out.resize(max_length);
  while (!out.empty() && !alnum(out.front())) out.erase(out.begin());
  while (!out.empty() && !alnum(out.back())) out.pop_back();
  return out.empty() ? "collbench" : out;
}

}  // namespace collbench::launch
