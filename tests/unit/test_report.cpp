// Warnings echo values the user (or whoever set up the environment) chose: they stay
// one short line whatever those values hold.
#include "catch.hpp"

#include <unistd.h>

#include <string>

#include "config/report.hpp"
#include "warning_capture.hpp"

using namespace computeprof::config;
using computeprof::test::WarningCapture;

TEST_CASE("values are echoed as they are when printable", "[report]") {
  CHECK(escape_for_warning("") == "");
  CHECK(escape_for_warning("/tmp/run 1/compute_profile.log") == "/tmp/run 1/compute_profile.log");
  CHECK(escape_for_warning("jos\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x98\x80") ==
        "jos\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac/\xf0\x9f\x98\x80");
}

TEST_CASE("control characters are escaped visibly", "[report]") {
  CHECK(escape_for_warning("a\nb\rc\td") == "a\\nb\\rc\\td");
  CHECK(escape_for_warning(std::string("\0\x01\x1b[31m\x7f", 8)) == "\\x00\\x01\\x1b[31m\\x7f");
  // A backslash in the value cannot pass for an escape.
  CHECK(escape_for_warning("a\\nb") == "a\\\\nb");
}

TEST_CASE("bytes that are not UTF-8 text, and C1 controls, are escaped", "[report]") {
  CHECK(escape_for_warning("caf\xe9") == "caf\\xe9");               // Latin-1
  CHECK(escape_for_warning("\xc2\x9b" "2J") == "\\xc2\\x9b2J");      // U+009B, a CSI
  CHECK(escape_for_warning("\xc0\x8a") == "\\xc0\\x8a");            // an overlong '\n'
  CHECK(escape_for_warning("\xe0\x80\x8a") == "\\xe0\\x80\\x8a");   // another
  CHECK(escape_for_warning("\xed\xa0\x80") == "\\xed\\xa0\\x80");   // a surrogate
  CHECK(escape_for_warning("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  CHECK(escape_for_warning("\xe6\x97") == "\\xe6\\x97");            // cut short
  CHECK(escape_for_warning("\xc2\xa0") == "\xc2\xa0");              // U+00A0 is text
}

TEST_CASE("at most 200 bytes of a value are shown, then ...", "[report]") {
  CHECK(escape_for_warning(std::string(200, 'x')) == std::string(200, 'x'));
  CHECK(escape_for_warning(std::string(201, 'x')) == std::string(200, 'x') + "...");
  CHECK(escape_for_warning(std::string(100000, 'x')).size() == 203);
  // The limit counts the value's bytes, not the escapes they become.
  CHECK(escape_for_warning(std::string(200, '\n')).size() == 400);
  CHECK(escape_for_warning(std::string(250, '\n')) == [] {
    std::string s;
    for (int i = 0; i < 200; ++i) s += "\\n";
    return s + "...";
  }());
  // A character that would cross the limit is left out whole.
  CHECK(escape_for_warning(std::string(199, 'x') + "\xc3\xa9") == std::string(199, 'x') + "...");
  CHECK(escape_for_warning(std::string(198, 'x') + "\xc3\xa9") == std::string(198, 'x') + "\xc3\xa9");
}

TEST_CASE("warn never passes on a line break or a control character", "[report]") {
  WarningCapture warnings;
  warn("one\ncomputeprof: forged");
  warn_once("two\r\x1b[2J");
  warn_once("two\r\x1b[2J");
  warn("C:\\dir stays");
  REQUIRE(warnings.lines().size() == 3);
  CHECK(warnings.lines()[0] == "one\\ncomputeprof: forged");
  CHECK(warnings.lines()[1] == "two\\r\\x1b[2J");
  CHECK(warnings.lines()[2] == "C:\\dir stays");
}

TEST_CASE("the default sink writes one line to stderr", "[report]") {
  int pipefd[2];
  REQUIRE(::pipe(pipefd) == 0);
  int saved = ::dup(STDERR_FILENO);
  REQUIRE(saved >= 0);
  ::dup2(pipefd[1], STDERR_FILENO);
  warn("a\nb");
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(pipefd[1]);
  std::string text;
  char buf[256];
  for (ssize_t n; (n = ::read(pipefd[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(pipefd[0]);
  CHECK(text == "computeprof: a\\nb\n");
}
