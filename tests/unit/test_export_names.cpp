// The names and paths of exports.
#include "catch.hpp"

#include "logfmt/export_path.hpp"
#include "records/kernel_names.hpp"

using namespace computeprof::records;
using namespace computeprof::logfmt;

TEST_CASE("kernels are demangled, what is not a mangled name stays", "[exports]") {
  CHECK(demangled_name("_Z6vecAddPKfS0_Pfi") == "vecAdd(float const*, float const*, float*, int)");
  CHECK(demangled_name("_Z4spiny") == "spin(unsigned long long)");
  CHECK(demangled_name("vec_add") == "vec_add");
  CHECK(demangled_name("memcpyHtoD") == "memcpyHtoD");
  CHECK(demangled_name("_Znot a name") == "_Znot a name");
}

TEST_CASE("a kernel's base name has no return type, scope, template arguments or parameters", "[exports]") {
  CHECK(base_name("vecAdd(float const*, float const*, float*, int)") == "vecAdd");
  CHECK(base_name("void at::native::elementwise_kernel<128, 2, (anonymous namespace)::f>(int, float)") ==
        "elementwise_kernel");
  CHECK(base_name("void scale<float, 3>(float*, int)") == "scale");
  CHECK(base_name("ns::Outer<int>::run(int)") == "run");
  CHECK(base_name("vec_add") == "vec_add");
}

TEST_CASE("exports are named after the log template, without %d, with their own extension", "[exports]") {
  CHECK(export_path_template("compute_profile.log", ".json") == "compute_profile.json");
  CHECK(export_path_template("logs/cuda_profile_%d.log", ".sqlite") == "logs/cuda_profile.sqlite");
  CHECK(export_path_template("run-%d-%p.txt", ".json") == "run-%p.json");
  CHECK(export_path_template("rank%q{RANK}_%d", ".json") == "rank%q{RANK}.json");
  CHECK(export_path_template("dir.d/profile", ".json") == "dir.d/profile.json");
  CHECK(export_path_template("%%d.log", ".json") == "%%d.json");
  CHECK(export_path_template(".hidden", ".json") == ".hidden.json");
}
