// Records that correspond to the real old logs quoted in docs/format.md ("Golden logs") produce those logs
// byte for byte.
#include "catch.hpp"

#include "config/profile_config.hpp"
#include "logfmt/header.hpp"
#include "logfmt/record_writer.hpp"
#include "warning_capture.hpp"
#include "written_log.hpp"

using namespace computeprof;
using namespace computeprof::records;
using namespace computeprof::logfmt;

TEST_CASE("golden: the CUDA key-value log of the old profiler", "[golden]") {
  config::ProfileConfig cfg;
  ColumnLayout layout = select_columns(cfg, config::Api::cuda);
  HeaderInfo info;
  info.device = 0;
  info.device_name = "GeForce GT 750M";
  info.context = 1;
  info.format = config::LogFormat::kvp;

  Record kernel;
  kernel.kind = RecordKind::kernel;
  kernel.method = "write_size";
  kernel.gputime_ns = 7424;
  kernel.cputime_ns = 17288;
  kernel.occupancy = 0.016;

  Record copy;
  copy.kind = RecordKind::memcpy;
  copy.method = "memcpyDtoH";
  copy.gputime_ns = 5280;
  copy.cputime_ns = 538104;
  copy.transfer_dir = TransferDir::device_to_host;
  copy.transfer_bytes = 4096;
  copy.host_mem_type = HostMemType::pageable;

  CHECK(test::written_log(info, layout, {kernel, copy}) ==
        "# CUDA_PROFILE_LOG_VERSION 2.0\n"
        "# CUDA_DEVICE 0 GeForce GT 750M\n"
        "# CUDA_CONTEXT 1\n"
        "method,gputime,cputime,occupancy\n"
        "method=[ write_size ] gputime=[ 7.424 ] cputime=[ 17.288 ] occupancy=[ 0.016 ] \n"
        "method=[ memcpyDtoH ] gputime=[ 5.280 ] cputime=[ 538.104 ] \n");
}

TEST_CASE("golden: the OpenCL CSV log of the old profiler", "[golden]") {
  computeprof::test::WarningCapture warnings;
  config::ProfileConfig cfg = config::parse_profile_config("streamid\ngpustarttimestamp\ngpuendtimestamp\n", "cfg");
  ColumnLayout layout = select_columns(cfg, config::Api::opencl);
  HeaderInfo info;
  info.device = 0;
  info.device_name = "Tesla K40c";
  info.context = 1;
  info.format = config::LogFormat::csv;
  info.timestamp_factor = 0x13d97a5aea505c75;

  Record copy;
  copy.kind = RecordKind::memcpy;
  copy.method = "memcpyHtoDasync";
  copy.gpu_start_ns = 0x13e224f5a60f82e0;
  copy.gpu_end_ns = 0x13e224f5a60fb0e0;
  copy.gputime_ns = copy.gpu_end_ns - copy.gpu_start_ns;
  copy.cputime_ns = 36645;
  copy.stream_id = 12;

  Record kernel;
  kernel.kind = RecordKind::kernel;
  kernel.method = "nbody";
  kernel.gpu_start_ns = 0x13e224f5a6131880;
  kernel.gpu_end_ns = 0x13e224f5a62745c0;
  kernel.gputime_ns = kernel.gpu_end_ns - kernel.gpu_start_ns;
  kernel.cputime_ns = 21637;
  kernel.occupancy = 0.75;
  kernel.stream_id = 12;

  CHECK(test::written_log(info, layout, {copy, kernel}) ==
        "# OPENCL_PROFILE_LOG_VERSION 2.0\n"
        "# OPENCL_DEVICE 0 Tesla K40c\n"
        "# OPENCL_CONTEXT 1\n"
        "# OPENCL_PROFILE_CSV 1\n"
        "# TIMESTAMPFACTOR 13d97a5aea505c75\n"
        "gpustarttimestamp,gpuendtimestamp,method,gputime,cputime,occupancy,streamid\n"
        "13e224f5a60f82e0,13e224f5a60fb0e0,memcpyHtoDasync,11.776,36.645,,12\n"
        "13e224f5a6131880,13e224f5a62745c0,nbody,1322.304,21.637,0.750,12\n");
  CHECK(warnings.lines().empty());
}

TEST_CASE("key-value pairs match the parser existing users run", "[golden]") {
  // (\S*)=\[\s(\S*)\s\] per pair: every non-grouped value is one token between "[ " and " ]".
  config::ProfileConfig cfg;
  cfg.set(config::Option::timestamp);
  cfg.set(config::Option::streamid);
  cfg.set(config::Option::memtransfersize);
  ColumnLayout layout = select_columns(cfg, config::Api::cuda);
  Record kernel;
  kernel.method = "_Z6vecAddPKfS0_Pfi";
  kernel.timestamp_ns = 1234567;
  kernel.gputime_ns = 1;
  kernel.cputime_ns = 1000000;
  kernel.occupancy = 1.0;
  kernel.stream_id = 7;
  std::string line;
  test::append_kvp_line(line, kernel, layout);
  CHECK(line ==
        "timestamp=[ 1234.567 ] method=[ _Z6vecAddPKfS0_Pfi ] gputime=[ 0.001 ] cputime=[ 1000.000 ] "
        "occupancy=[ 1.000 ] streamid=[ 7 ] \n");
}
