// passinfra/detail/utf8.hpp — UTF-8 well-formedness, for text that must stay valid.
//
// utf8_sequence_length(s, i)   the length of the well-formed UTF-8 sequence at s[i]
//                              (1 for ASCII), 0 when s[i] starts none
//
// Used where input bytes are echoed into output that must be valid UTF-8: the
// Chrome trace's JSON strings (U+FFFD for a bad byte), diagnostics'
// source lines (`\xNN`).
#pragma once

#include <cstddef>
#include <string_view>

namespace passinfra::detail {

// utf8_sequence_length(s, i): 1 for an ASCII byte; the length (2 to 4) of the
// well-formed UTF-8 sequence starting at s[i] (Unicode table 3-7: no overlong
// form, no surrogate, at most U+10FFFF, not cut short by the end of s); 0
// when s[i] starts none.
inline std::size_t utf8_sequence_length(std::string_view s, std::size_t i) noexcept {
  const auto byte = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0U; };
  const unsigned b0 = byte(0);
  const auto in = [](unsigned b, unsigned lo, unsigned hi) { return b >= lo && b <= hi; };
  const auto cont = [&](unsigned b) { return in(b, 0x80, 0xBF); };
  if (b0 < 0x80) return i < s.size() ? 1 : 0;
  if (in(b0, 0xC2, 0xDF)) return cont(byte(1)) ? 2 : 0;
  if (b0 == 0xE0) return in(byte(1), 0xA0, 0xBF) && cont(byte(2)) ? 3 : 0;
  if (in(b0, 0xE1, 0xEC) || in(b0, 0xEE, 0xEF)) return cont(byte(1)) && cont(byte(2)) ? 3 : 0;
  if (b0 == 0xED) return in(byte(1), 0x80, 0x9F) && cont(byte(2)) ? 3 : 0;
  if (b0 == 0xF0) return in(byte(1), 0x90, 0xBF) && cont(byte(2)) && cont(byte(3)) ? 4 : 0;
  if (in(b0, 0xF1, 0xF3)) return cont(byte(1)) && cont(byte(2)) && cont(byte(3)) ? 4 : 0;
  if (b0 == 0xF4) return in(byte(1), 0x80, 0x8F) && cont(byte(2)) && cont(byte(3)) ? 4 : 0;
  return 0;
}

}  // namespace passinfra::detail
