// multi_thread [threads] [launches]: many threads, each with its own context and stream.
//
// Thread t (t = 0 .. threads-1, default 8 threads) creates a context on device
// t % device count and a stream (cuStreamCreate, flags 0), then on that stream:
//   memcpyHtoDasync  4096 bytes from page-locked memory (cuMemAllocHost)
//   _Z5emptyv        `launches` times (default 100), grid 1x1x1, block 1x1x1
//   memcpyDtoHasync  4096 bytes into page-locked memory (cuMemAllocHost)
// and synchronizes the stream. Totals: threads x launches kernels, `threads` HtoDasync
// and `threads` DtoHasync copies (defaults: 800 kernels, 8 + 8 copies), in `threads`
// contexts.
#include <cuda.h>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/sample_outcome.hpp"
#include "driver/driver_check.hpp"
#include "driver/embedded_kernels.hpp"

namespace {

constexpr int kDefaultThreads = 8;
constexpr int kDefaultLaunches = 100;
constexpr std::size_t kWords = 1024;
constexpr std::size_t kBytes = kWords * sizeof(std::uint32_t);

int parse_count(const char* text, int minimum) {
  int value = 0;
  const std::string_view digits(text);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size() || value < minimum) {
    samples::fail("usage: multi_thread [threads >= 1] [launches >= 0], got '%s'", text);
  }
  return value;
}

// A value no other thread and no other word uses, so a mixed-up buffer shows.
std::uint32_t pattern(int thread, std::size_t word) {
  return static_cast<std::uint32_t>(thread) * 1000003u + static_cast<std::uint32_t>(word);
}

struct ThreadOutcome {
  int device = 0;
  std::string failure;  // empty when the thread passed
};

void run_thread(int thread, int device_count, int launches, ThreadOutcome& outcome) {
  outcome.device = thread % device_count;
  CUdevice device;
  CU_CHECK(cuDeviceGet(&device, outcome.device));
  CUcontext context;
  CU_CHECK(cuCtxCreate(&context, nullptr, 0, device));
  CUmodule module;
  CU_CHECK(cuModuleLoadData(&module, samples::kernels_ptx()));
  CUfunction empty;
  CU_CHECK(cuModuleGetFunction(&empty, module, samples::kEmptyName));
  CUstream stream;
  CU_CHECK(cuStreamCreate(&stream, CU_STREAM_DEFAULT));

  std::uint32_t* sent = nullptr;
  std::uint32_t* received = nullptr;
  CU_CHECK(cuMemAllocHost(reinterpret_cast<void**>(&sent), kBytes));
  CU_CHECK(cuMemAllocHost(reinterpret_cast<void**>(&received), kBytes));
  for (std::size_t word = 0; word < kWords; ++word) sent[word] = pattern(thread, word);
  std::memset(received, 0, kBytes);
  CUdeviceptr buffer;
  CU_CHECK(cuMemAlloc(&buffer, kBytes));

  CU_CHECK(cuMemcpyHtoDAsync(buffer, sent, kBytes, stream));
  for (int launch = 0; launch < launches; ++launch) {
    CU_CHECK(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr));
  }
  CU_CHECK(cuMemcpyDtoHAsync(received, buffer, kBytes, stream));
  CU_CHECK(cuStreamSynchronize(stream));

  for (std::size_t word = 0; word < kWords; ++word) {
    if (received[word] != sent[word]) {
      samples::fail("word %zu came back as %u, expected %u", word, received[word], sent[word]);
    }
  }

  CU_CHECK(cuMemFree(buffer));
  CU_CHECK(cuMemFreeHost(received));
  CU_CHECK(cuMemFreeHost(sent));
  CU_CHECK(cuStreamDestroy(stream));
  CU_CHECK(cuModuleUnload(module));
  CU_CHECK(cuCtxDestroy(context));
}

void run(int argc, char** argv) {
  if (argc > 3) samples::fail("usage: multi_thread [threads] [launches]");
  const int threads = argc > 1 ? parse_count(argv[1], 1) : kDefaultThreads;
  const int launches = argc > 2 ? parse_count(argv[2], 0) : kDefaultLaunches;

  CU_CHECK(cuInit(0));
  int device_count = 0;
  CU_CHECK(cuDeviceGetCount(&device_count));
  if (device_count < 1) samples::fail("cuDeviceGetCount reported %d devices", device_count);

  std::vector<ThreadOutcome> outcomes(threads);
  std::vector<std::thread> workers;
  for (int thread = 0; thread < threads; ++thread) {
    workers.emplace_back([thread, device_count, launches, &outcomes] {
      // A failure ends this thread only; main reports it after every thread is done.
      try {
        run_thread(thread, device_count, launches, outcomes[thread]);
      } catch (const samples::SampleFailure& failure) {
        outcomes[thread].failure = "thread " + std::to_string(thread) + ": " + failure.what();
      }
    });
  }
  for (std::thread& worker : workers) worker.join();

  // Printed after the join, in thread order, so the output does not depend on timing.
  for (int thread = 0; thread < threads; ++thread) {
    const ThreadOutcome& outcome = outcomes[thread];
    if (!outcome.failure.empty()) samples::fail("%s", outcome.failure.c_str());
    std::printf("thread %d: device %d, memcpyHtoDasync %zu bytes, %d x empty grid 1 block 1, memcpyDtoHasync %zu bytes\n",
                thread, outcome.device, kBytes, launches, kBytes);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return samples::run_sample([argc, argv] { run(argc, argv); });
}
