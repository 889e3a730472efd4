// Theoretical occupancy by the occupancy calculator's rules, each value worked out by
// hand below; what NVIDIA's -cl-nv-verbose build log says of each kernel; how the
// runtime's texts (names, build logs) are asked for; and the per-thread handle caches.
#include "catch.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "shim/opencl/handle_cache.hpp"
#include "shim/opencl/info_text.hpp"
#include "shim/opencl/occupancy_calculator.hpp"
#include "shim/opencl/ptxas_usage.hpp"

using namespace computeprof::shim;

TEST_CASE("occupancy limited by warps, blocks, registers and shared memory", "[occupancy]") {
  const SmLimits h100 = *sm_limits(9, 0);  // 64 warps, 32 blocks, 64K registers, 228 KiB, 1 KiB reserved
  // 256 threads = 8 warps; 64/8 = 8 blocks; 32 registers: 1024 per warp, 64 warps by
  // registers: 8 blocks. 64 of 64 warps.
  CHECK(theoretical_occupancy(h100, {256, 32, 0}) == 1.0);
  // 64 threads = 2 warps, 40 registers: 40*32 = 1280 per warp, 65536/1280 = 51 warps,
  // 25 blocks of 2 warps: 50 of 64 warps.
  CHECK(theoretical_occupancy(h100, {64, 40, 0}) == 50.0 / 64);
  // 32 threads = 1 warp: the 32-block limit: 32 of 64 warps.
  CHECK(theoretical_occupancy(h100, {32, 16, 0}) == 0.5);
  // 1024 threads = 32 warps, 48 KiB shared + 1 KiB reserved: 233472/50176 = 4 blocks
  // by shared memory, but 2 by warps: 64 of 64.
  CHECK(theoretical_occupancy(h100, {1024, 0, 48 * 1024}) == 1.0);
  // 128 threads = 4 warps, 100 KiB shared: 233472/(102400+1024) = 2 blocks: 8 of 64.
  CHECK(theoretical_occupancy(h100, {128, 0, 100 * 1024}) == 8.0 / 64);
  // 255 registers: 8160 rounded up to 8192 per warp, 8 warps fit; 256 threads = 8
  // warps: 1 block, 8 of 64.
  CHECK(theoretical_occupancy(h100, {256, 255, 0}) == 8.0 / 64);

  const SmLimits t4 = *sm_limits(7, 5);  // 32 warps, 16 blocks, 64 KiB, nothing reserved
  // 64 threads = 2 warps: 16 blocks by warps and by blocks: 32 of 32.
  CHECK(theoretical_occupancy(t4, {64, 32, 0}) == 1.0);
  // 20 KiB shared (20480, a multiple of 128): 65536/20480 = 3 blocks of 4 warps: 12 of 32.
  CHECK(theoretical_occupancy(t4, {128, 0, 20 * 1024}) == 12.0 / 32);

  const SmLimits a100 = *sm_limits(8, 0);  // 64 warps, 32 blocks, 164 KiB, 1 KiB reserved
  // 100 bytes of shared round up to 128, + 1024 = 1152; 167936/1152 = 145 blocks: no
  // limit; 64 threads: 32 blocks by the block limit: 64 of 64.
  CHECK(theoretical_occupancy(a100, {64, 0, 100}) == 1.0);

  const SmLimits rtx3090 = *sm_limits(8, 6);  // 48 warps, 16 blocks
  // 32 threads: 16 blocks of 1 warp: 16 of 48.
  CHECK(theoretical_occupancy(rtx3090, {32, 0, 0}) == 16.0 / 48);

  CHECK_FALSE(sm_limits(5, 2).has_value());
  CHECK(theoretical_occupancy(h100, {0, 32, 0}) == 0.0);
  // Too much shared memory for any block.
  CHECK(theoretical_occupancy(h100, {64, 0, 300 * 1024}) == 0.0);
}

namespace {
constexpr const char* kVerboseLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'vec_add' for 'sm_90'\n"
    "ptxas info    : Function properties for vec_add\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 8 registers, 380 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function 'scale' for 'sm_90'\n"
    "ptxas info    : Function properties for scale\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 40 registers, 1024 bytes smem, 372 bytes cmem[0]\n";
}

TEST_CASE("registers per kernel from ptxas lines", "[occupancy]") {
  const auto registers = kernel_registers(kVerboseLog);
  REQUIRE(registers.size() == 2);
  CHECK(registers.at("vec_add") == 8);
  CHECK(registers.at("scale") == 40);
  CHECK(kernel_registers("").empty());
  CHECK(kernel_registers("warning: unused variable\n").empty());
}

TEST_CASE("the build log without what -cl-nv-verbose added", "[occupancy]") {
  CHECK(without_verbose_lines(std::string("<kernel>:3:7: warning: unused variable 'x'\n") + kVerboseLog) ==
        "<kernel>:3:7: warning: unused variable 'x'\n");
  CHECK(without_verbose_lines(kVerboseLog).empty());
  CHECK(without_verbose_lines("a\nb") == "a\nb");
  CHECK(without_verbose_lines("") == "");
}

namespace {

// A clGet*Info function over a fake object: `param` picks the answer.
enum FakeParam : cl_uint { kName, kEmbeddedNul, kEmpty, kSizeFails, kTextFails };
struct FakeObject {
  int text_calls = 0;
};

cl_int fake_info(FakeObject* object, cl_uint param, std::size_t size, void* value, std::size_t* size_ret) {
  const char* text = param == kEmbeddedNul ? "ab\0cd" : "vec_add";
  const std::size_t bytes = param == kEmpty ? 0 : param == kEmbeddedNul ? 6 : std::strlen(text) + 1;
  if (param == kSizeFails || (value && param == kTextFails)) return CL_INVALID_VALUE;
  if (value) {
    ++object->text_calls;
    if (size < bytes) return CL_INVALID_VALUE;
    std::memcpy(value, text, bytes);
  }
  if (size_ret) *size_ret = bytes;
  return CL_SUCCESS;
}

}  // namespace

TEST_CASE("a text query asks the size, then the text, and keeps it up to its first NUL", "[opencl]") {
  FakeObject object;
  CHECK(opencl_info_text(&fake_info, &object, kName) == "vec_add");
  CHECK(object.text_calls == 1);
  CHECK(opencl_info_text(&fake_info, &object, kEmbeddedNul) == "ab");
  CHECK(opencl_info_text(&fake_info, &object, kEmpty).empty());
  CHECK(opencl_info_text(&fake_info, &object, kSizeFails).empty());
  CHECK(opencl_info_text(&fake_info, &object, kTextFails).empty());
  CHECK(object.text_calls == 2);  // neither an empty text nor a failed size is asked for
  decltype(&fake_info) missing = nullptr;
  CHECK(opencl_info_text(missing, &object, kName).empty());
}

TEST_CASE("a handle cache holds a value per handle while its generation lasts, and a handle in the same slot replaces it",
          "[opencl]") {
  const auto handle = [](std::uintptr_t bits) { return reinterpret_cast<const int*>(bits); };
  HandleCache<const int*, int, 8> cache;
  CHECK(cache.find(handle(0x1000), 1) == nullptr);
  cache.put(handle(0x1000), 1, 10);
  cache.put(handle(0x1010), 1, 11);  // the next slot
  REQUIRE(cache.find(handle(0x1000), 1) != nullptr);
  CHECK(*cache.find(handle(0x1000), 1) == 10);
  CHECK(*cache.find(handle(0x1010), 1) == 11);
  CHECK(cache.find(handle(0x1000), 2) == nullptr);
  cache.put(handle(0x1080), 2, 12);  // (0x108 ^ 0x1) % 8 == (0x100 ^ 0x1) % 8: the slot of 0x1000
  CHECK(cache.find(handle(0x1000), 1) == nullptr);
  CHECK(*cache.find(handle(0x1080), 2) == 12);
  CHECK(*cache.find(handle(0x1010), 1) == 11);
}
