// Text read from outside (pasted outputs, NCCL logs) may hold bytes that are not UTF-8: Latin-1,
// a binary blob, a line cut mid-character. collbench's JSON documents cannot (nlohmann's dump()
// throws on them), so the readers hand on only valid UTF-8.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace collbench::report {

// The length of the valid UTF-8 character at s[i] (1 to 4), or 0 when it is not one: a stray
// continuation byte, a cut sequence, an overlong form, a surrogate or a code point past U+10FFFF.
inline std::size_t utf8_char_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  const std::uint8_t c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0, min = 0;
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07, min = 0x10000;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// `s` with each byte that does not start a valid character replaced by U+FFFD.
inline std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t valid_from = 0;  // valid characters are copied a run at a time, not one by one
  for (std::size_t i = 0; i < s.size();) {
    if (const std::size_t n = utf8_char_length(s, i)) {
      i += n;
    } else {
      out.append(s, valid_from, i - valid_from);
      out += "\xEF\xBF\xBD";
      valid_from = ++i;
    }
  }
  out.append(s, valid_from);
  return out;
}

// At most `max` bytes of valid UTF-8 `s`, cut back to the start of a character.
inline std::string_view utf8_prefix(std::string_view s, std::size_t max) {
  if (s.size() <= max) return s;
  while (max > 0 && (static_cast<std::uint8_t>(s[max]) & 0xC0) == 0x80) --max;
  return s.substr(0, max);
}

}  // namespace collbench::report
