// The kinds a measured case is labelled with, from the command line through the result model to
// every document: where the output buffer lies (--placement) and which ranks ran it (--scope).
#pragma once

#include <cstdint>
#include <string_view>

namespace collbench {

enum class Placement : std::uint8_t { OutOfPlace, InPlace };
// Which ranks run each collective: all of them, each node's ranks, or local rank i of every node.
enum class Scope : std::uint8_t { World, Node, Rail };

// "out_of_place", "in_place": the JSON's placement.
inline const char* placement_name(Placement p) { return p == Placement::InPlace ? "in_place" : "out_of_place"; }
// "world", "node", "rail": the option's values and the JSON's group.scope.
inline const char* scope_name(Scope s) { return s == Scope::Node ? "node" : s == Scope::Rail ? "rail" : "world"; }

// The names above; false for anything else.
inline bool parse_placement(std::string_view text, Placement* out) {
  for (Placement p : {Placement::OutOfPlace, Placement::InPlace})
    if (text == placement_name(p)) {
      *out = p;
      return true;
    }
  return false;
}
inline bool parse_scope(std::string_view text, Scope* out) {
  for (Scope s : {Scope::World, Scope::Node, Scope::Rail})
    if (text == scope_name(s)) {
      *out = s;
      return true;
    }
  return false;
}

}  // namespace collbench
