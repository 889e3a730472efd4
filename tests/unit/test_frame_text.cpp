// A frame's text as the stacks file, the memory report and the trace write it, read
// back by `computeprof stacks`; the module list beside a stacks file (symbols/).
#include <string>
#include <vector>

#include "catch.hpp"

#include "symbols/frame.hpp"
#include "symbols/module_list.hpp"

using namespace computeprof::symbols;

namespace {

Frame frame(std::string function, std::string module, std::uintptr_t offset, std::string file = "", unsigned line = 0,
            bool inlined = false) {
  Frame f;
  f.function = std::move(function);
  f.module = std::move(module);
  f.offset = offset;
  f.file = std::move(file);
  f.line = line;
  f.inlined = inlined;
  return f;
}

}  // namespace

TEST_CASE("a frame's text: function, module file name and offset, then file:line, then inlined", "[symbols]") {
  CHECK(describe_frame(frame("main", "/usr/bin/app", 0x1a2f)) == "main (app+0x1a2f)");
  CHECK(describe_frame(frame("??", "", 0x10)) == "?? (??+0x10)");
  CHECK(describe_frame(frame("scale(int)", "/lib/libx.so", 0x40, "/src/x.cpp", 12)) ==
        "scale(int) (libx.so+0x40) /src/x.cpp:12");
  CHECK(describe_frame(frame("twice", "/lib/libx.so", 0x40, "/src/x.hpp", 3, true)) ==
        "twice (libx.so+0x40) /src/x.hpp:3 inlined");
}

TEST_CASE("a frame's text read back: the last (NAME+0xHEX) is the module, whatever the function and file hold",
          "[symbols]") {
  const auto plain = parse_described_frame("main (app+0x1a2f)");
  REQUIRE(plain);
  CHECK(plain->function == "main");
  CHECK(plain->module_name == "app");
  CHECK(plain->offset == 0x1a2f);
  CHECK_FALSE(plain->inlined);

  const auto tricky = parse_described_frame(
      "auto f()::{lambda(int)#1}::operator()(int) const (lib+0x3.so+0x40) /s (1)/x.cpp:7 inlined");
  REQUIRE(tricky);
  CHECK(tricky->function == "auto f()::{lambda(int)#1}::operator()(int) const");
  CHECK(tricky->module_name == "lib+0x3.so");
  CHECK(tricky->offset == 0x40);
  CHECK(tricky->inlined);

  CHECK_FALSE(parse_described_frame("main"));
  CHECK_FALSE(parse_described_frame("main (app+0x)"));
  CHECK_FALSE(parse_described_frame("main (app+0xzz)"));
  CHECK_FALSE(parse_described_frame(""));
}

TEST_CASE("the module list: one line per module, build-id '-' for none, paths with spaces", "[symbols]") {
  const std::string text = std::string(kModulesHeader) + module_line({"/opt/my app/bin/app", "c71f3874"}) +
                           module_line({"/lib/libc.so.6", ""}) + "module broken\nmodule x 00 /y/z\ngarbage\n";
  CHECK(text == "# COMPUTEPROF_MODULES 1\nmodule app c71f3874 /opt/my app/bin/app\nmodule libc.so.6 - "
                "/lib/libc.so.6\nmodule broken\nmodule x 00 /y/z\ngarbage\n");
  const auto modules = parse_module_list(text);
  REQUIRE(modules.size() == 2);  // "x" is not the file name of /y/z
  CHECK(modules[0].path == "/opt/my app/bin/app");
  CHECK(modules[0].build_id == "c71f3874");
  CHECK(modules[1].path == "/lib/libc.so.6");
  CHECK(modules[1].build_id == "");
  REQUIRE(module_named(modules, "libc.so.6") != nullptr);
  CHECK(module_named(modules, "libc.so.6")->path == "/lib/libc.so.6");
  CHECK(module_named(modules, "libm.so.6") == nullptr);
}
