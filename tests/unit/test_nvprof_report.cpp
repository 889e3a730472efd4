// nvprof's printed outputs from a database's rows: the summary, the GPU and API traces,
// their CSV forms, each line exact.
#include "catch.hpp"

#include "reports/nvprof_report.hpp"

using namespace computeprof::reports;

namespace {

constexpr std::uint64_t kOrigin = 1'700'000'000'000'000'000;

// A copy in, a kernel, a copy out and a memset, on device 0 of an H100.
std::vector<NvprofGpuRow> gpu_rows() {
  NvprofGpuRow in;
  in.activity = NvprofActivity::memcpy;
  in.start_ns = kOrigin + 1'000;
  in.duration_ns = 2'500;
  in.bytes = 409'600;
  in.copy_kind = 1;
  in.src_kind = 1;
  in.dst_kind = 3;
  in.device = "NVIDIA H100 80GB HBM3";
  in.context = 1;
  in.stream = 7;
  in.correlation = 2;
  NvprofGpuRow kernel = in;
  kernel.activity = NvprofActivity::kernel;
  kernel.start_ns = kOrigin + 10'000;
  kernel.duration_ns = 3'703'700;
  kernel.grid[0] = 20;
  kernel.grid[1] = 10;
  kernel.grid[2] = 1;
  kernel.block[0] = kernel.block[1] = 32;
  kernel.block[2] = 1;
  kernel.registers = 29;
  kernel.static_smem = 8'192;
  kernel.bytes = 0;
  kernel.name = "_Z6vecAddPKfS0_Pfi";
  kernel.correlation = 3;
  NvprofGpuRow out = in;
  out.start_ns = kOrigin + 4'000'000;
  out.duration_ns = 248'130;
  out.bytes = 819'200;
  out.copy_kind = 2;
  out.src_kind = 3;
  out.dst_kind = 2;
  out.correlation = 4;
  NvprofGpuRow set = in;
  set.activity = NvprofActivity::memset;
  set.start_ns = kOrigin + 4'300'000;
  set.duration_ns = 992;
  set.bytes = 112;
  set.src_kind = 0;
  set.correlation = 5;
  // Not in start order: the traces sort them.
  return {kernel, in, set, out};
}

std::vector<NvprofApiRow> api_rows() {
  return {{kOrigin, 20'000, "cudaMemcpy", 2},
          {kOrigin + 8'000, 13'220, "cudaLaunchKernel", 3},
          {kOrigin + 3'990'000, 300'000, "cudaMemcpy", 4},
          {kOrigin + 4'295'000, 6'000, "cudaMemset", 5}};
}

}  // namespace

TEST_CASE("nvprof summary: GPU activities and API calls, nvprof's columns", "[nvprof]") {
  CHECK(format_nvprof_summary(gpu_rows(), api_rows(), true, true, {}, "==42== ") ==
        "==42== Profiling result:\n"
        "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
        " GPU activities:   93.64%  3.7037ms         1  3.7037ms  3.7037ms  3.7037ms  vecAdd(float const*, float "
        "const*, float*, int)\n"
        "                    6.27%  248.13us         1  248.13us  248.13us  248.13us  [CUDA memcpy DtoH]\n"
        "                    0.06%  2.5000us         1  2.5000us  2.5000us  2.5000us  [CUDA memcpy HtoD]\n"
        "                    0.03%     992ns         1     992ns     992ns     992ns  [CUDA memset]\n"
        "      API calls:   94.33%  320.00us         2  160.00us  20.000us  300.00us  cudaMemcpy\n"
        "                    3.90%  13.220us         1  13.220us  13.220us  13.220us  cudaLaunchKernel\n"
        "                    1.77%  6.0000us         1  6.0000us  6.0000us  6.0000us  cudaMemset\n");
  CHECK(format_nvprof_summary(gpu_rows(), api_rows(), false, true, {}, "==42== ") ==
        "==42== Profiling result:\n"
        "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
        "      API calls:   94.33%  320.00us         2  160.00us  20.000us  300.00us  cudaMemcpy\n"
        "                    3.90%  13.220us         1  13.220us  13.220us  13.220us  cudaLaunchKernel\n"
        "                    1.77%  6.0000us         1  6.0000us  6.0000us  6.0000us  cudaMemset\n");
  CHECK(format_nvprof_summary({}, {}, true, true, {}, "==42== ") ==
        "==42== Profiling result:\n==42== No kernels were profiled.\n");
}

TEST_CASE("nvprof summary --csv: a header row, a units row, one unit per column", "[nvprof]") {
  CHECK(format_nvprof_summary(gpu_rows(), api_rows(), true, true, {NvprofTimeUnit::automatic, true}, "==42== ") ==
        "==42== Profiling result:\n"
        "\"Type\",\"Time(%)\",\"Time\",\"Calls\",\"Avg\",\"Min\",\"Max\",\"Name\"\n"
        ",%,ms,,ms,ms,ms,\n"
        "\"GPU activities\",93.638394,3.703700,1,3.703700,3.703700,3.703700,\"vecAdd(float const*, float const*, "
        "float*, int)\"\n"
        "\"GPU activities\",6.273320,0.248130,1,0.248130,0.248130,0.248130,\"[CUDA memcpy DtoH]\"\n"
        "\"GPU activities\",0.063206,0.002500,1,0.002500,0.002500,0.002500,\"[CUDA memcpy HtoD]\"\n"
        "\"GPU activities\",0.025080,0.000992,1,0.000992,0.000992,0.000992,\"[CUDA memset]\"\n"
        "\"API calls\",94.334060,0.320000,2,0.160000,0.020000,0.300000,\"cudaMemcpy\"\n"
        "\"API calls\",3.897176,0.013220,1,0.013220,0.013220,0.013220,\"cudaLaunchKernel\"\n"
        "\"API calls\",1.768764,0.006000,1,0.006000,0.006000,0.006000,\"cudaMemset\"\n");
  // -u us: every time in microseconds.
  const std::string us = format_nvprof_summary(gpu_rows(), {}, true, false, {NvprofTimeUnit::us, true}, "");
  CHECK(us.find(",%,us,,us,us,us,\n") != std::string::npos);
  CHECK(us.find("\"GPU activities\",0.025080,0.992000,1,0.992000,0.992000,0.992000,\"[CUDA memset]\"\n") !=
        std::string::npos);
}

TEST_CASE("nvprof --print-gpu-trace: nvprof's columns and widths, rows by start, the legend", "[nvprof]") {
  CHECK(format_nvprof_gpu_trace(gpu_rows(), kOrigin, {}, "==42== ") ==
        "==42== Profiling result:\n"
        "   Start  Duration            Grid Size      Block Size     Regs*    SSMem*    DSMem*      Size  Throughput  "
        "SrcMemType  DstMemType           Device   Context    Stream  Name\n"
        "1.0000us  2.5000us                    -               -         -         -         -  409.60KB  163.84GB/s  "
        "  Pageable      Device  NVIDIA H100 80G         1         7  [CUDA memcpy HtoD]\n"
        "10.000us  3.7037ms            (20 10 1)       (32 32 1)        29  8.1920KB        0B         -           -  "
        "         -           -  NVIDIA H100 80G         1         7  vecAdd(float const*, float const*, float*, int) "
        "[3]\n"
        "4.0000ms  248.13us                    -               -         -         -         -  819.20KB  3.3015GB/s  "
        "    Device      Pinned  NVIDIA H100 80G         1         7  [CUDA memcpy DtoH]\n"
        "4.3000ms     992ns                    -               -         -         -         -      112B  112.90MB/s  "
        "         -      Device  NVIDIA H100 80G         1         7  [CUDA memset]\n"
        "\n"
        "Regs: Number of registers used per CUDA thread. This number includes registers used internally by the CUDA "
        "driver and/or tools and can be more than what the compiler shows.\n"
        "SSMem: Static shared memory allocated per CUDA block.\n"
        "DSMem: Dynamic shared memory allocated per CUDA block.\n"
        "SrcMemType: The type of source memory accessed by memory operation/copy\n"
        "DstMemType: The type of destination memory accessed by memory operation/copy\n");
}

TEST_CASE("nvprof --print-gpu-trace --csv: nvprof's CSV columns, empty where a row has no value", "[nvprof]") {
  CHECK(format_nvprof_gpu_trace(gpu_rows(), kOrigin, {NvprofTimeUnit::automatic, true}, "==42== ") ==
        "==42== Profiling result:\n"
        "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\",\"Block Z\","
        "\"Registers Per Thread\",\"Static SMem\",\"Dynamic SMem\",\"Size\",\"Throughput\",\"SrcMemType\","
        "\"DstMemType\",\"Device\",\"Context\",\"Stream\",\"Name\",\"Correlation_ID\"\n"
        "ms,ms,,,,,,,,B,B,B,GB/s,,,,,,,\n"
        "0.001000,0.002500,,,,,,,,,,409600,163.840000,\"Pageable\",\"Device\",\"NVIDIA H100 80GB HBM3 (0)\",1,7,"
        "\"[CUDA memcpy HtoD]\",2\n"
        "0.010000,3.703700,20,10,1,32,32,1,29,8192,0,,,,,\"NVIDIA H100 80GB HBM3 (0)\",1,7,"
        "\"vecAdd(float const*, float const*, float*, int)\",3\n"
        "4.000000,0.248130,,,,,,,,,,819200,3.301495,\"Device\",\"Pinned\",\"NVIDIA H100 80GB HBM3 (0)\",1,7,"
        "\"[CUDA memcpy DtoH]\",4\n"
        "4.300000,0.000992,,,,,,,,,,112,0.112903,,\"Device\",\"NVIDIA H100 80GB HBM3 (0)\",1,7,\"[CUDA memset]\",5\n");
}

TEST_CASE("nvprof --print-api-trace: a launch names its kernel and correlation id", "[nvprof]") {
  CHECK(format_nvprof_api_trace(api_rows(), gpu_rows(), kOrigin, {}, "==42== ") ==
        "==42== Profiling result:\n"
        "   Start  Duration  Name\n"
        "     0ns  20.000us  cudaMemcpy\n"
        "8.0000us  13.220us  cudaLaunchKernel (vecAdd(float const*, float const*, float*, int) [3])\n"
        "3.9900ms  300.00us  cudaMemcpy\n"
        "4.2950ms  6.0000us  cudaMemset\n");
  CHECK(format_nvprof_api_trace(api_rows(), gpu_rows(), kOrigin, {NvprofTimeUnit::us, true}, "==42== ") ==
        "==42== Profiling result:\n"
        "\"Start\",\"Duration\",\"Name\",\"Correlation_ID\"\n"
        "us,us,,\n"
        "0.000000,20.000000,\"cudaMemcpy\",2\n"
        "8.000000,13.220000,\"cudaLaunchKernel (vecAdd(float const*, float const*, float*, int) [3])\",3\n"
        "3990.000000,300.000000,\"cudaMemcpy\",4\n"
        "4295.000000,6.000000,\"cudaMemset\",5\n");
}

TEST_CASE("nvprof sizes and -u's fixed units", "[nvprof]") {
  CHECK(format_nvprof_bytes(0) == "0B");
  CHECK(format_nvprof_bytes(112) == "112B");
  CHECK(format_nvprof_bytes(409'600) == "409.60KB");
  CHECK(format_nvprof_bytes(1'000'000) == "1.0000MB");
  const std::string ms = format_nvprof_api_trace(api_rows(), {}, kOrigin, {NvprofTimeUnit::ms, false}, "");
  CHECK(ms.find("\n3.9900ms  0.3000ms  cudaMemcpy\n") != std::string::npos);
  const std::string column = format_nvprof_api_trace(api_rows(), {}, kOrigin, {NvprofTimeUnit::column, false}, "");
  CHECK(column.find("\n0.0080ms  13.220us  cudaLaunchKernel\n") != std::string::npos);
}
