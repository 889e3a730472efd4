// Call stacks named from the binaries (docs/format.md, "Call stacks"): stack_program's
// static, inlined and hidden functions by name, file and line in the stacks file, the
// memory report, the database and the trace; its stripped copies with a separate debug
// file, with none, and with one that is not theirs; `computeprof stacks` naming a
// stripped run's frames again from the unstripped binary; modules replaced or broken
// since the run; without libdw. The expected lines are found in the sources by their
// "// at:" markers.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"

#include "database_query.hpp"
#include "e2e_support.hpp"

using namespace e2e;

namespace {

// The line (from 1) of `source` that holds "// at: <marker>".
int line_of(const std::string& source, const std::string& marker) {
  std::istringstream in(read_file(source));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.ends_with("// at: " + marker)) return number;
  }
  FAIL("no marker " << marker << " in " << source);
  return 0;
}

// The line (from 1) of `source` that holds `text`.
int line_holding(const std::string& source, const std::string& text) {
  std::istringstream in(read_file(source));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find(text) != std::string::npos) return number;
  }
  FAIL("no line holds " << text << " in " << source);
  return 0;
}

std::string program_line(const std::string& marker) {
  return "stack_program.cpp:" + std::to_string(line_of(STACK_PROGRAM_SOURCE, marker));
}
std::string library_line(const std::string& marker) {
  return "stack_library.cpp:" + std::to_string(line_of(STACK_LIBRARY_SOURCE, marker));
}

// Offsets as "+?", source files by their file name: what the test can know.
std::string without_offsets_and_directories(const std::string& text) {
  const std::string no_offsets = std::regex_replace(text, std::regex("\\+0x[0-9a-f]+\\)"), "+?)");
  return std::regex_replace(no_offsets, std::regex(" [^ \n]*/([^/ \n]+:[0-9]+)"), " $1");
}

// The first `count` frame lines of each stack of a stacks file, in order.
std::vector<std::string> stack_tops(const std::string& stacks, std::size_t count) {
  std::vector<std::string> out;
  std::istringstream in(stacks);
  std::string line;
  std::string top;
  std::size_t frames = 0;
  while (std::getline(in, line)) {
    if (line.starts_with("stack ")) {
      if (!top.empty()) out.push_back(top);
      top.clear();
      frames = 0;
    } else if (line.starts_with("#") && !line.starts_with("# ") && frames++ < count) {
      top += line + "\n";
    }
  }
  if (!top.empty()) out.push_back(top);
  return out;
}

struct StackRun {
  RunResult result;
  std::string directory;
  std::string stacks;
};

StackRun run_program(const std::string& program, const std::string& config = "callstack\nmemtrace\nexport sqlite,json\n",
                     std::map<std::string, std::optional<std::string>> env = {}) {
  auto o = profiling(config);
  o.argv = {program};
  for (auto& [k, v] : env) o.env[k] = v;
  StackRun run{e2e::run(o), o.directory, {}};
  INFO(run.result.out << run.result.err);
  REQUIRE(run.result.exit_code == 0);
  REQUIRE(run.result.out == "PASS\n");
  run.stacks = read_file(o.directory + "/compute_profile.stacks");
  return run;
}

// stack_program's three stacks (the allocation, the launches from the static function
// and from the library), three frames each, named as `module`.
std::vector<std::string> named_tops(const std::string& module) {
  return {
      "#0 allocate_buffer() (" + module + "+?) " + program_line("allocation") + "\n" +
          "#1 main (" + module + "+?) " + program_line("main allocates") + "\n",
      "#0 launch_inlined (" + module + "+?) " + program_line("inlined launch") + " inlined\n" +
          "#1 launch_from_static(CUfunc_st*) (" + module + "+?) " + program_line("static calls inlined") + "\n" +
          "#2 main (" + module + "+?) " + program_line("main calls static") + "\n",
      "#0 launch_hidden(CUfunc_st*) (libstack_library.so+?) " + library_line("library launch") + "\n" +
          "#1 stack_library_launch(CUfunc_st*) (libstack_library.so+?) " + library_line("library calls hidden") +
          "\n" + "#2 main (" + module + "+?) " + program_line("main calls library") + "\n",
  };
}

std::vector<std::string> tops_of(const std::string& stacks, std::size_t count) {
  return stack_tops(without_offsets_and_directories(stacks), count);
}

// Whether a stack of `stacks` begins with the frames of `expected` (in any order of
// stacks: memory events and records reach the file by different queues).
bool has_top(const std::string& stacks, const std::string& expected, bool exact_offsets = false) {
  const auto frames = static_cast<std::size_t>(std::count(expected.begin(), expected.end(), '\n'));
  const auto tops = exact_offsets ? stack_tops(stacks, frames) : tops_of(stacks, frames);
  return std::find(tops.begin(), tops.end(), expected) != tops.end();
}

void check_named(const std::string& stacks, const std::string& module) {
  INFO(stacks);
  for (const std::string& expected : named_tops(module)) {
    INFO(expected);
    CHECK(has_top(stacks, expected));
  }
  CHECK(stack_tops(stacks, 1).size() == 4);  // the free's stack too
}

// The stack of `stacks` whose first frame starts with `first`, `count` frames.
std::string top_starting(const std::string& stacks, const std::string& first, std::size_t count) {
  for (const std::string& top : stack_tops(stacks, count)) {
    if (top.starts_with(first)) return top;
  }
  return "";
}

std::vector<std::string> offsets_of(const std::string& stacks) {
  std::vector<std::string> out;
  const std::regex offset("\\+(0x[0-9a-f]+)\\)");
  for (std::sregex_iterator it(stacks.begin(), stacks.end(), offset), end; it != end; ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

RunOptions command_line(const std::vector<std::string>& args) {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.preload_shim = false;
  o.simulated_driver = false;
  o.argv = {COMPUTEPROF_CLI_PATH};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  // Under ASan, GCC 12's LeakSanitizer reads a garbage dynamic TLS range of the thread
  // that loaded libdw (whose libelf has thread-locals; glibc 2.36) and its tracer faults
  // at exit: it does not scan thread-local storage here (nor lists its suppressions).
  o.env["LSAN_OPTIONS"] = "use_tls=0:print_suppressions=0";
  return o;
}

void copy(const std::string& from, const std::string& to) {
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
}

}  // namespace

TEST_CASE("callstack: static, inlined and hidden functions by name, file and line in every output",
          "[e2e][callstack]") {
  const auto run = run_program(STACK_PROGRAM_PATH);
  INFO(run.stacks);
  CHECK(run.result.err.find("call stacks:") == std::string::npos);
  check_named(run.stacks, "stack_program");

  // The memory report names the allocation's innermost frame.
  const std::string report = read_file(run.directory + "/compute_profile.memory");
  CHECK(std::regex_search(report, std::regex("cuMemAlloc_v2 at [0-9.]+ ms from allocate_buffer\\(\\) "
                                             "\\(stack_program\\+0x[0-9a-f]+\\) [^ ]*/" +
                                             program_line("allocation") + " \\(stack [0-9]+\\)\n")));

  // The database: the same frames in CUDA_CALLCHAINS, their files and lines beside.
  const std::string db = run.directory + "/compute_profile.sqlite";
  const std::string launch_chain =
      query(db, "SELECT callchainId FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
                "WHERE s.value = 'cuLaunchKernel' ORDER BY start LIMIT 1")
          .at(0);
  CHECK(query(db, "SELECT s.value, c.unresolved, replace(f.value, rtrim(f.value, replace(f.value, '/', '')), '') || "
                  "':' || l.lineNumber || ':' || l.inlined FROM CUDA_CALLCHAINS c JOIN StringIds s ON s.id = c.symbol "
                  "JOIN COMPUTEPROF_CALLCHAIN_SOURCES l ON l.id = c.id AND l.stackDepth = c.stackDepth "
                  "JOIN StringIds f ON f.id = l.sourceFile WHERE c.id = " +
                      launch_chain + " AND c.stackDepth < 3 ORDER BY c.stackDepth") ==
        std::vector<std::string>{"launch_inlined|0|" + program_line("inlined launch") + ":1",
                                 "launch_from_static(CUfunc_st*)|0|" + program_line("static calls inlined") + ":0",
                                 "main|0|" + program_line("main calls static") + ":0"});

  // The trace: the frames as in the stacks file.
  const std::string trace = read_file(run.directory + "/compute_profile.json");
  CHECK(trace.find("\"stack\":[\"launch_inlined (stack_program+0x") != std::string::npos);

  // The module list beside the stacks: the program and its library with their build-ids.
  const std::string modules = read_file(run.directory + "/compute_profile.modules");
  CHECK(modules.starts_with("# COMPUTEPROF_MODULES 1\n"));
  CHECK(std::regex_search(modules, std::regex("\nmodule stack_program [0-9a-f]{40} " +
                                              std::string(STACK_PROGRAM_PATH) + "\n")));
  CHECK(std::regex_search(modules, std::regex("\nmodule libstack_library.so [0-9a-f]{40} " +
                                              std::string(STACK_LIBRARY_PATH) + "\n")));
}

TEST_CASE("callstack: the sample vector_add's first copy, from main through its inlined functions", "[e2e][callstack]") {
  auto o = profiling("callstack\n");
  o.argv = {VECTOR_ADD_PATH};
  const auto r = e2e::run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string stacks = read_file(o.directory + "/compute_profile.stacks");
  INFO(stacks);
  // Whether run and run_sample are inlined depends on the build type: not checked here.
  // run, in an anonymous namespace, has no linkage name in DWARF: inlined, it is named
  // "run"; out of line, by the symbol table, "(anonymous namespace)::run()".
  const std::string expected =
      "#0 run (vector_add+?) vector_add.cpp:" +
      std::to_string(line_holding(VECTOR_ADD_SOURCE, "CU_CHECK(cuMemcpyHtoD(device_a,")) +
      "\n#1 int samples::run_sample<void (*)()>(void (*)()) (vector_add+?) sample_outcome.hpp:" +
      std::to_string(line_holding(SAMPLE_OUTCOME_SOURCE, "    body();")) + "\n#2 main (vector_add+?) vector_add.cpp:" +
      std::to_string(line_holding(VECTOR_ADD_SOURCE, "int main()")) + "\n";
  const std::string first =
      std::regex_replace(tops_of(std::regex_replace(stacks, std::regex(" inlined\n"), "\n"), 3).at(0),
                         std::regex("^#0 (\\(anonymous namespace\\)::)?run(\\(\\))? "), "#0 run ");
  CHECK(first == expected);
}

TEST_CASE("callstack: a stripped program is named from its separate debug file (.gnu_debuglink)", "[e2e][callstack]") {
  const auto run = run_program(STACK_VARIANTS_DIR "/stack_program_debuglinked");
  INFO(run.stacks);
  CHECK(run.result.err.find("call stacks:") == std::string::npos);
  check_named(run.stacks, "stack_program_debuglinked");
}

TEST_CASE("callstack: a stripped program without debug information keeps module+offset", "[e2e][callstack]") {
  const auto named = run_program(STACK_PROGRAM_PATH);
  const auto run = run_program(STACK_VARIANTS_DIR "/stack_program_stripped");
  INFO(run.stacks);
  CHECK(run.result.err.find("call stacks:") == std::string::npos);
  // The launch from the static function: at the offsets of the program it was stripped
  // from (less the inlined frame's, at the same offset), no name.
  const std::string named_top = top_starting(named.stacks, "#0 launch_inlined", 3);
  const auto offsets = offsets_of(named_top);
  REQUIRE(offsets.size() == 3);
  CHECK(has_top(run.stacks, "#0 ?? (stack_program_stripped+" + offsets[1] + ")\n#1 ?? (stack_program_stripped+" +
                                offsets[2] + ")\n",
                true));
  CHECK(stack_tops(run.stacks, 1).size() == 4);
}

TEST_CASE("callstack: debug files are looked for on this machine only, never through debuginfod",
          "[e2e][callstack]") {
  // A debuginfod server that refuses every connection, and its client's cache: libdwfl's
  // standard search would create the cache (and ask the server) for each module it
  // finds no debug file of on disk.
  const std::string scratch = make_scratch_directory();
  const std::string cache = scratch + "/debuginfod-cache";
  const std::string debug_directory = scratch + "/debug";
  std::map<std::string, std::optional<std::string>> env{{"DEBUGINFOD_URLS", "http://127.0.0.1:9"},
                                                        {"DEBUGINFOD_CACHE_PATH", cache},
                                                        {"COMPUTEPROF_DEBUG_FILE_DIRECTORY", debug_directory}};
  const std::string config = "callstack\nmemtrace\n";

  SECTION("by .gnu_debuglink") {
    const auto run = run_program(STACK_VARIANTS_DIR "/stack_program_debuglinked", config, env);
    INFO(run.stacks);
    CHECK(run.result.err.find("call stacks:") == std::string::npos);
    check_named(run.stacks, "stack_program_debuglinked");
  }
  SECTION("by build-id, under COMPUTEPROF_DEBUG_FILE_DIRECTORY") {
    // The stripped copy's build-id is the program's: its debug file is the one the
    // debuglinked copy names.
    const auto before = run_program(STACK_VARIANTS_DIR "/stack_program_stripped", config, env);
    const std::string modules = read_file(before.directory + "/compute_profile.modules");
    std::smatch found;
    REQUIRE(std::regex_search(modules, found, std::regex("module stack_program_stripped ([0-9a-f]{40}) ")));
    const std::string build_id = found[1];
    std::filesystem::create_directories(debug_directory + "/.build-id/" + build_id.substr(0, 2));
    copy(STACK_VARIANTS_DIR "/stack_program_debuglinked.debug",
         debug_directory + "/.build-id/" + build_id.substr(0, 2) + "/" + build_id.substr(2) + ".debug");
    const auto run = run_program(STACK_VARIANTS_DIR "/stack_program_stripped", config, env);
    INFO(run.stacks);
    CHECK(run.result.err.find("call stacks:") == std::string::npos);
    check_named(run.stacks, "stack_program_stripped");
  }
  SECTION("none: module+offset") {
    const auto run = run_program(STACK_VARIANTS_DIR "/stack_program_stripped", config, env);
    INFO(run.stacks);
    CHECK(run.result.err.find("call stacks:") == std::string::npos);
    CHECK(has_top(run.stacks, "#0 ?? (stack_program_stripped+?)\n#1 ?? (stack_program_stripped+?)\n"));
  }
  CHECK_FALSE(std::filesystem::exists(cache));
}

TEST_CASE("callstack: a debug file that is not the program's is refused, and one line names it", "[e2e][callstack]") {
  const auto run = run_program(STACK_VARIANTS_DIR "/stack_program_mismatched");
  INFO(run.stacks);
  const std::string line = "computeprof: call stacks: " STACK_VARIANTS_DIR "/stack_program_mismatched.debug: not the "
                           "debug file of " STACK_VARIANTS_DIR "/stack_program_mismatched (build-id or CRC differs); its "
                           "frames have no files and lines\n";
  CHECK(run.result.err.starts_with(line));
  CHECK(run.result.err.find("call stacks:", line.size()) == std::string::npos);
  CHECK(has_top(run.stacks, "#0 ?? (stack_program_mismatched+?)\n#1 ?? (stack_program_mismatched+?)\n"));
  CHECK(run.stacks.find("stack_program.cpp") == std::string::npos);
}

TEST_CASE("computeprof stacks: a stripped run's frames named again from the binary beside the stacks",
          "[e2e][callstack]") {
  // The run: a stripped copy, which names nothing.
  auto o = profiling("callstack\nmemtrace\n");
  const std::string program = o.directory + "/stack_program";
  copy(STACK_VARIANTS_DIR "/stack_program_stripped", program);
  std::filesystem::permissions(program, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add);
  o.argv = {program};
  const auto r = e2e::run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string stacks = read_file(o.directory + "/compute_profile.stacks");
  CHECK(has_top(stacks, "#0 ?? (stack_program+?)\n#1 ?? (stack_program+?)\n"));

  // Another machine: the stacks and modules files, and the unstripped program beside them.
  const std::string elsewhere = make_scratch_directory();
  copy(o.directory + "/compute_profile.stacks", elsewhere + "/run.stacks");
  copy(o.directory + "/compute_profile.modules", elsewhere + "/run.modules");
  copy(STACK_PROGRAM_PATH, elsewhere + "/stack_program");
  std::filesystem::remove(program);
  const auto named = e2e::run(command_line({"stacks", elsewhere + "/run.stacks"}));
  INFO(named.out << named.err);
  CHECK(named.exit_code == 0);
  CHECK(named.err == "");
  CHECK(named.out.starts_with("# COMPUTEPROF_STACKS 1\nstack 1\n"));
  check_named(named.out, "stack_program");
  // Named again, nothing changes.
  copy(elsewhere + "/run.modules", elsewhere + "/again.modules");
  {
    std::ofstream(elsewhere + "/again.stacks") << named.out;
  }
  const auto again = e2e::run(command_line({"stacks", elsewhere + "/again.stacks"}));
  CHECK(again.out == named.out);
}

TEST_CASE("computeprof stacks: a module replaced or broken since the run keeps module+offset, one line names it",
          "[e2e][callstack]") {
  const auto run = run_program(STACK_PROGRAM_PATH, "callstack\n");
  const std::string modules = read_file(run.directory + "/compute_profile.modules");
  const std::string elsewhere = make_scratch_directory();
  copy(run.directory + "/compute_profile.stacks", elsewhere + "/run.stacks");
  const std::string binary = elsewhere + "/stack_program";
  const auto modules_naming = [&](const std::string& build_id) {
    std::ofstream(elsewhere + "/run.modules")
        << "# COMPUTEPROF_MODULES 1\nmodule stack_program " << build_id << " " << binary << "\n";
  };

  SECTION("replaced: another build-id") {
    copy(STACK_PROGRAM_PATH, binary);
    modules_naming(std::string(40, 'a'));
    const auto r = e2e::run(command_line({"stacks", elsewhere + "/run.stacks"}));
    CHECK(r.exit_code == 0);
    CHECK(std::regex_match(r.err, std::regex("computeprof: call stacks: " + binary +
                                             ": not the file the stack was captured in \\(build-id [0-9a-f]{40}, not "
                                             "a{40}\\); its frames keep module\\+offset\n")));
    CHECK(r.out == read_file(elsewhere + "/run.stacks"));
  }
  SECTION("truncated") {
    const std::string whole = read_file(STACK_PROGRAM_PATH);
    std::ofstream(binary) << whole.substr(0, whole.size() / 3);
    modules_naming("-");
    const auto r = e2e::run(command_line({"stacks", elsewhere + "/run.stacks"}));
    CHECK(r.exit_code == 0);
    INFO(r.err);
    CHECK(std::regex_match(r.err, std::regex("computeprof: call stacks: " + binary +
                                             ": not read: [^\n]+; its frames keep module\\+offset\n")));
    // The program's frames as they were (their inlined frames too).
    CHECK(r.out == read_file(elsewhere + "/run.stacks"));
  }
  SECTION("without libdw: as they were") {
    copy(STACK_PROGRAM_PATH, binary);
    modules_naming("-");
    auto o = command_line({"stacks", elsewhere + "/run.stacks"});
    const std::string missing = elsewhere + "/no-libdw.so.1";
    o.env["COMPUTEPROF_LIBDW_LIBRARY"] = missing;
    // libdw is not loaded: LeakSanitizer scans thread-locals as usual, where glibc keeps
    // the failed dlopen's message (unscanned, it is reported as leaked).
    o.env["LSAN_OPTIONS"] = std::nullopt;
    const auto r = e2e::run(o);
    CHECK(r.exit_code == 0);
    CHECK(r.err == "computeprof: call stacks: libdw not loaded: " + missing +
                       ": cannot open shared object file: No such file or directory; the stacks are printed as they "
                       "were (install libdw1)\n");
    CHECK(r.out == read_file(elsewhere + "/run.stacks"));
  }
  SECTION("deleted") {
    modules_naming("-");
    const auto r = e2e::run(command_line({"stacks", elsewhere + "/run.stacks"}));
    CHECK(r.exit_code == 0);
    CHECK(std::regex_match(r.err, std::regex("computeprof: call stacks: " + binary +
                                             ": not read: [^\n]+; its frames keep module\\+offset\n")));
    CHECK(r.out == read_file(elsewhere + "/run.stacks"));
  }
}

TEST_CASE("callstack: the program's file deleted or replaced while it runs: module+offset, one line names it",
          "[e2e][callstack]") {
  auto o = profiling("callstack\n");
  const std::string program = o.directory + "/stack_program";
  copy(STACK_PROGRAM_PATH, program);
  o.argv = {program};
  std::string why;
  SECTION("deleted") {
    o.argv.push_back("delete-self");
    why = ": not read: [^\n]+";
  }
  SECTION("replaced") {
    copy(STACK_LIBRARY_PATH, o.directory + "/other");
    o.argv.insert(o.argv.end(), {"replace-self", o.directory + "/other"});
    why = ": not the file the stack was captured in \\(build-id [0-9a-f]{40}, not [0-9a-f]{40}\\)";
  }
  const auto r = e2e::run(o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(std::regex_match(r.err, std::regex("computeprof: call stacks: " + program + why +
                                           "; its frames keep module\\+offset\n")));
  const std::string stacks = read_file(o.directory + "/compute_profile.stacks");
  INFO(stacks);
  CHECK(has_top(stacks, "#0 ?? (stack_program+?)\n#1 ?? (stack_program+?)\n"));
  CHECK(has_top(stacks, "#0 launch_hidden(CUfunc_st*) (libstack_library.so+?) " + library_line("library launch") +
                            "\n#1 stack_library_launch(CUfunc_st*) (libstack_library.so+?) " +
                            library_line("library calls hidden") + "\n#2 ?? (stack_program+?)\n"));
}

TEST_CASE("callstack without libdw: the exported symbols name the frames, and one line says so", "[e2e][callstack]") {
  const std::string missing = make_scratch_directory() + "/no-libdw.so.1";
  const auto run = run_program(STACK_PROGRAM_PATH, "callstack\n", {{"COMPUTEPROF_LIBDW_LIBRARY", missing}});
  CHECK(run.result.err == "computeprof: call stacks: libdw not loaded: " + missing +
                              ": cannot open shared object file: No such file or directory; frames are named from "
                              "exported symbols only, without files and lines (install libdw1)\n");
  CHECK(has_top(run.stacks, "#0 ?? (libstack_library.so+?)\n#1 stack_library_launch(CUfunc_st*) "
                            "(libstack_library.so+?)\n#2 ?? (stack_program+?)\n"));
  CHECK(has_top(run.stacks, "#0 ?? (stack_program+?)\n#1 ?? (stack_program+?)\n"));
  CHECK(stack_tops(run.stacks, 1).size() == 2);
}
