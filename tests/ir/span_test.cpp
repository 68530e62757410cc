// Span, to_string, source_line and render_diagnostic (passinfra/ir/span.hpp): one
// test per rendering rule, each with the exact text.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <string_view>

#include <passinfra/ir/span.hpp>

using passinfra::render_diagnostic;
using passinfra::source_line;
using passinfra::Span;
using namespace std::string_literals;
using namespace std::string_view_literals;

TEST_CASE("span: an aggregate of source, line, column, end line and end column; 0 is unknown") {
  const Span unknown;
  CHECK(unknown.source.empty());
  CHECK(unknown.line == 0);
  CHECK(unknown.column == 0);
  CHECK(unknown.end_line == 0);
  CHECK(unknown.end_column == 0);
  const Span s{"in.tir", 2, 3, 2, 7};
  CHECK(s == Span{"in.tir", 2, 3, 2, 7});
  CHECK(s != Span{"in.tir", 2, 3, 2, 8});
  CHECK(s != Span{"other.tir", 2, 3, 2, 7});
}

TEST_CASE("span: to_string is <source>:<line>:<column>, leaving out what is unknown") {
  CHECK(to_string(Span{"in.tir", 12, 5, 12, 9}) == "in.tir:12:5");
  CHECK(passinfra::to_string(Span{"in.tir", 12, 5, 0, 0}) == "in.tir:12:5");
  CHECK(to_string(Span{"in.tir", 12, 0, 0, 0}) == "in.tir:12");
  CHECK(to_string(Span{"in.tir", 0, 5, 0, 0}) == "in.tir");
  CHECK(to_string(Span{"in.tir", -1, -1, 0, 0}) == "in.tir");
  CHECK(to_string(Span{}).empty());
  CHECK(to_string(Span{"a\0b"s, 1, 2, 0, 0}) == "a\\0b:1:2");
}

TEST_CASE("span: source_line finds a 1-based line without its line end") {
  const std::string_view text = "first\nsecond\r\n\nlast";
  CHECK(source_line(text, 1) == "first"sv);
  CHECK(source_line(text, 2) == "second"sv);  // CRLF: the \r goes too
  CHECK(source_line(text, 3) == ""sv);
  CHECK(source_line(text, 4) == "last"sv);
  CHECK(source_line(text, 5) == std::nullopt);
  CHECK(source_line(text, 0) == std::nullopt);
  CHECK(source_line(text, -3) == std::nullopt);
  // A text ending in "\n" has one more, empty, line: where end of input is.
  CHECK(source_line("a\n", 2) == ""sv);
  CHECK(source_line("a\n", 3) == std::nullopt);
  CHECK(source_line("", 1) == ""sv);
  CHECK(source_line("", 2) == std::nullopt);
  // A \r ending the text goes; one elsewhere stays.
  CHECK(source_line("a\r", 1) == "a"sv);
  CHECK(source_line("a\rb\r\r\n", 1) == "a\rb\r"sv);
}

TEST_CASE("span: render_diagnostic without a text is the location, severity and message") {
  CHECK(render_diagnostic("error", Span{"in.tir", 2, 5, 0, 0}, "bad thing") == "in.tir:2:5: error: bad thing");
  CHECK(render_diagnostic("warning", Span{"in.tir", 2, 0, 0, 0}, "odd") == "in.tir:2: warning: odd");
  CHECK(render_diagnostic("note", Span{"in.tir", 0, 0, 0, 0}, "here") == "in.tir: note: here");
  // An empty severity is left out with its ": ".
  CHECK(render_diagnostic("", Span{"in.tir", 2, 5, 0, 0}, "type error") == "in.tir:2:5: type error");
}

TEST_CASE("span: render_diagnostic shows the span's line and a caret under its column") {
  const std::string_view text = "def @main() {\n  add(%x, %y)\n}\n";
  CHECK(render_diagnostic("error", Span{"in.tir", 2, 11, 0, 0}, "undefined '%y'", text) ==
        "in.tir:2:11: error: undefined '%y'\n"
        "  add(%x, %y)\n"
        "          ^");
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 1, 0, 0}, "at the start", text) ==
        "in.tir:1:1: error: at the start\n"
        "def @main() {\n"
        "^");
  // No trailing newline: the result can be what() or one log message.
  CHECK(render_diagnostic("error", Span{"in.tir", 3, 1, 0, 0}, "m", text).back() == '^');
}

TEST_CASE("span: render_diagnostic underlines to the end column when the span ends on its line") {
  // [underline]
  const std::string_view text = "  add(%x, %y)\n";
  // end_column is just past the span: `%y` is columns 11 and 12.
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 11, 1, 13}, "undefined variable '%y'", text) ==
        "in.tir:1:11: error: undefined variable '%y'\n"
        "  add(%x, %y)\n"
        "          ^~");
  // [underline]
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 3, 1, 14}, "m", text) ==
        "in.tir:1:3: error: m\n"
        "  add(%x, %y)\n"
        "  ^~~~~~~~~~~");
  // One character, an empty span or an end before the start: the caret alone.
  for (const int end : {4, 3, 1}) {
    CHECK(render_diagnostic("error", Span{"in.tir", 1, 3, 1, end}, "m", text) ==
          "in.tir:1:3: error: m\n"
          "  add(%x, %y)\n"
          "  ^");
  }
  // A span ending on a later line (or with no end): the caret alone.
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 3, 2, 14}, "m", text) ==
        "in.tir:1:3: error: m\n"
        "  add(%x, %y)\n"
        "  ^");
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 3, 0, 14}, "m", text) ==
        "in.tir:1:3: error: m\n"
        "  add(%x, %y)\n"
        "  ^");
}

TEST_CASE("span: render_diagnostic keeps tabs so the caret and underline line up") {
  // Bytes: \t f o o \t b a r; `bar` is columns 6 to 8.
  const std::string_view text = "\tfoo\tbar";
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 6, 1, 9}, "m", text) ==
        "in.tir:1:6: error: m\n"
        "\tfoo\tbar\n"
        "\t   \t^~~");
  // A tab inside the underline stays a tab.
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 2, 1, 9}, "m", text) ==
        "in.tir:1:2: error: m\n"
        "\tfoo\tbar\n"
        "\t^~~\t~~~");
}

TEST_CASE("span: render_diagnostic shows no line past the end of the text, nor for an unknown line") {
  CHECK(render_diagnostic("error", Span{"in.tir", 3, 1, 0, 0}, "m", "a\nb") == "in.tir:3:1: error: m");
  CHECK(render_diagnostic("error", Span{"in.tir", 99, 4, 99, 6}, "m", "a\nb\n") == "in.tir:99:4: error: m");
  CHECK(render_diagnostic("error", Span{"in.tir", 0, 0, 0, 0}, "m", "a\nb\n") == "in.tir: error: m");
  // The empty line after a final "\n" is there: end of input points at it.
  CHECK(render_diagnostic("error", Span{"in.tir", 3, 1, 0, 0}, "found end of input", "a\nb\n") ==
        "in.tir:3:1: error: found end of input\n"
        "\n"
        "^");
}

TEST_CASE("span: render_diagnostic shows the line but no caret when the column is unknown") {
  CHECK(render_diagnostic("error", Span{"in.tir", 2, 0, 0, 0}, "m", "a\n  b\n") ==
        "in.tir:2: error: m\n"
        "  b");
  CHECK(render_diagnostic("error", Span{"in.tir", 2, -5, 2, 3}, "m", "a\n  b\n") ==
        "in.tir:2: error: m\n"
        "  b");
}

TEST_CASE("span: render_diagnostic puts a column past the line end just after the line") {
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 3, 0, 0}, "m", "ab\ncd") ==
        "in.tir:1:3: error: m\n"
        "ab\n"
        "  ^");
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 1000000000, 0, 0}, "m", "ab\ncd") ==
        "in.tir:1:1000000000: error: m\n"
        "ab\n"
        "  ^");
  // The underline stops at the line's end too.
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 1, 1, 1000000000}, "m", "ab\ncd") ==
        "in.tir:1:1: error: m\n"
        "ab\n"
        "^~");
}

TEST_CASE("span: render_diagnostic drops CRLF line ends") {
  const std::string_view text = "first\r\nsecond\r\nthird\r";
  CHECK(render_diagnostic("error", Span{"in.tir", 2, 3, 2, 5}, "m", text) ==
        "in.tir:2:3: error: m\n"
        "second\n"
        "  ^~");
  CHECK(render_diagnostic("error", Span{"in.tir", 3, 6, 0, 0}, "m", text) ==
        "in.tir:3:6: error: m\n"
        "third\n"
        "     ^");
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 1, 0, 0}, "m", text).find('\r') == std::string::npos);
}

TEST_CASE("span: render_diagnostic gives a NUL-free result, showing each NUL as \\0") {
  // Bytes: a b NUL c d; `c` is column 4 and NUL shows as two characters.
  const std::string text = "ab\0cd\nnext"s;
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 4, 0, 0}, "unexpected character '\0'"s, text) ==
        "in.tir:1:4: error: unexpected character '\\0'\n"
        "ab\\0cd\n"
        "    ^");
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 2, 1, 5}, "m", text) ==
        "in.tir:1:2: error: m\n"
        "ab\\0cd\n"
        " ^~~~");
  const std::string all = render_diagnostic("err\0r"s, Span{"in\0.tir"s, 1, 3, 1, 4}, "m\0"s, text);
  CHECK(all == "in\\0.tir:1:3: err\\0r: m\\0\nab\\0cd\n  ^");
  CHECK(all.find('\0') == std::string::npos);
}

TEST_CASE("span: render_diagnostic counts a UTF-8 character as one cell before the caret") {
  // "é" is two bytes, so `%y` is columns 6 and 7 but the fifth character.
  const std::string_view text = "\xC3\xA9 + %y";
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 6, 1, 8}, "m", text) ==
        "in.tir:1:6: error: m\n"
        "\xC3\xA9 + %y\n"
        "    ^~");
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 1, 1, 5}, "m", text) ==
        "in.tir:1:1: error: m\n"
        "\xC3\xA9 + %y\n"
        "^~~");
}

TEST_CASE("span: render_diagnostic is valid UTF-8 whatever the bytes, showing a bad byte as \\xNN") {
  // A stray continuation byte, an overlong '/', a surrogate, a cut-short "é":
  // each byte that starts no well-formed sequence shows as \xNN and takes four
  // cells before the caret; a well-formed "é" stays itself, one cell.
  const std::string_view text = "\x80 \xC0\xAF \xED\xA0\x80 \xC3\xA9 %y \xC3";
  const std::string shown = R"(\x80 \xc0\xaf \xed\xa0\x80 )"
                            "\xC3\xA9"
                            R"( %y \xc3)";
  // `%y` is bytes 12 and 13 (columns 13 and 14).
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 13, 1, 15}, "m\xFF", text) ==
        "in.tir:1:13: error: m\\xff\n" + shown + "\n" + std::string(4 + 1 + 8 + 1 + 12 + 1 + 1 + 1, ' ') + "^~");
  // The caret stands under the first cell of a bad byte; the underline spans
  // the escapes of the bytes after it.
  CHECK(render_diagnostic("error", Span{"in.tir", 1, 3, 1, 5}, "m", text) ==
        "in.tir:1:3: error: m\n" + shown + "\n" + std::string(5, ' ') + "^~~~~");
  CHECK(render_diagnostic("error", Span{"in\xFE.tir", 0, 0, 0, 0}, "m") == "in\\xfe.tir: error: m");
}
