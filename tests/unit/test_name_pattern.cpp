// The patterns of the kernel filters (config/name_pattern): RE2's syntax, a clear error
// for what it lacks, and searches that neither crash nor hang on long names.
#include <string>

#include "catch.hpp"

#include "config/name_pattern.hpp"

using computeprof::config::NamePattern;

namespace {

std::string refused(const std::string& text) {
  std::string error;
  CHECK_FALSE(NamePattern::compile(text, error));
  return error;
}

bool found(const std::string& pattern, const std::string& name) {
  std::string error;
  const auto p = NamePattern::compile(pattern, error);
  INFO(pattern << ": " << error);
  REQUIRE(p);
  return p->found_in(name);
}

const std::string kWithout = " is not supported: patterns are RE2's syntax, without backreferences or lookaround";

}  // namespace

TEST_CASE("patterns: searched anywhere in the name, anchored where they say", "[filters][patterns]") {
  CHECK(found("vecAdd", "_Z6vecAddPKfS0_Pfi"));
  CHECK(found("^_Z6vec(Add|Sub)", "_Z6vecAddPKfS0_Pfi"));
  CHECK_FALSE(found("^vecAdd$", "_Z6vecAddPKfS0_Pfi"));
  CHECK(found("ns::kernel<\\d+>", "void ns::kernel<128>(float*)"));
  CHECK(found("(?i)VECADD", "vecAdd"));
  CHECK(found("[(?=]x", "(x"));  // in a class, "(?=" is three characters
}

TEST_CASE("patterns: a backreference or lookaround is one error naming it", "[filters][patterns]") {
  CHECK(refused("(a)\\1") == "a backreference (\\1)" + kWithout);
  CHECK(refused("(?P<n>a)\\k<n>") == "a backreference (\\k)" + kWithout);
  CHECK(refused("(a)\\g1") == "a backreference (\\g)" + kWithout);
  CHECK(refused("(?P<n>a)(?P=n)") == "a backreference (?P=name)" + kWithout);
  CHECK(refused("vec(?=Add)") == "lookahead (?=...)" + kWithout);
  CHECK(refused("vec(?!Add)") == "negative lookahead (?!...)" + kWithout);
  CHECK(refused("(?<=vec)Add") == "lookbehind (?<=...)" + kWithout);
  CHECK(refused("(?<!vec)Add") == "negative lookbehind (?<!...)" + kWithout);
  // Escaped, or in a class, they are other things; RE2's own words say what is wrong.
  CHECK(refused("\\(?=(") == "not a regular expression: missing ): \\(?=(");
  CHECK(refused("[\\1]") == "not a regular expression: invalid escape sequence: \\1");
  CHECK(refused("a**") == "not a regular expression: bad repetition operator: **");
}

TEST_CASE("patterns: the empty and the too long are refused", "[filters][patterns]") {
  CHECK(refused("") == "an empty regular expression");
  CHECK(refused(std::string(513, 'a')) == "a regular expression longer than 512 characters");
  std::string error;
  CHECK(NamePattern::compile(std::string(512, 'a'), error));
}

TEST_CASE("patterns: nested quantifiers over names of 60,000 characters neither crash nor hang",
          "[filters][patterns]") {
  // A backtracking engine recurses once a character on the first (a stack overflow at
  // 20,000) and takes exponential time on the others.
  const std::string as(60'000, 'a');
  CHECK_FALSE(found("(a|b)*c", as));
  CHECK(found("(a|b)*c", as + "c"));
  CHECK_FALSE(found("(a+)+b", as));
  CHECK_FALSE(found("^(a|aa)+$", as + "b"));
  CHECK(found("^(a|aa)+$", as));
  CHECK_FALSE(found("(x+x+)+y", std::string(60'000, 'x')));
  CHECK(found("(.*a){20}", as));
}

TEST_CASE("patterns: copies share one compiled pattern", "[filters][patterns]") {
  std::string error;
  const auto p = NamePattern::compile("spin", error);
  REQUIRE(p);
  const NamePattern copy = *p;
  CHECK(copy.found_in("_Z4spiny"));
  CHECK_FALSE(copy.found_in("vecAdd"));
}
