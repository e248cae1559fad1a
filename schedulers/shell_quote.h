// Words for a POSIX shell: what a generated script says is what it runs, whatever the characters.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace collbench::launch {

// `word` as one shell word: unchanged when it has only characters no shell treats specially,
// else in single quotes (an embedded ' becomes '\'').
inline std::string shell_quote(std::string_view word) {
  const bool plain = !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789@%+=:,./_-") == std::string_view::npos;
  if (plain) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + shell_quote(w);
  return out;
}

}  // namespace collbench::launch
