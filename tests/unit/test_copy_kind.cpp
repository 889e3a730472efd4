// What a copy is called in the log, from where its ends live (docs/format.md, "Methods and directions").
#include "catch.hpp"

#include "records/copy_kind.hpp"

using namespace computeprof::records;

TEST_CASE("directions, names and host memory types of every pair of ends", "[copies]") {
  struct Case {
    MemorySide src, dst;
    bool async;
    std::string_view method;
    TransferDir dir;
    std::optional<HostMemType> host;
  };
  using S = MemorySide;
  const Case cases[] = {
      {S::pageable_host, S::device, false, "memcpyHtoD", TransferDir::host_to_device, HostMemType::pageable},
      {S::pinned_host, S::device, true, "memcpyHtoDasync", TransferDir::host_to_device, HostMemType::page_locked},
      {S::device, S::pageable_host, false, "memcpyDtoH", TransferDir::device_to_host, HostMemType::pageable},
      {S::device, S::pinned_host, true, "memcpyDtoHasync", TransferDir::device_to_host, HostMemType::page_locked},
      {S::device, S::device, false, "memcpyDtoD", TransferDir::device_to_device, std::nullopt},
      {S::pinned_host, S::array, false, "memcpyHtoA", TransferDir::host_to_device, HostMemType::page_locked},
      {S::array, S::pageable_host, true, "memcpyAtoHasync", TransferDir::device_to_host, HostMemType::pageable},
      {S::array, S::array, false, "memcpyAtoA", TransferDir::device_to_device, std::nullopt},
      {S::array, S::device, false, "memcpyAtoD", TransferDir::device_to_device, std::nullopt},
      {S::device, S::array, true, "memcpyDtoAasync", TransferDir::device_to_device, std::nullopt},
      {S::pinned_host, S::pageable_host, false, "memcpyHtoH", TransferDir::host_to_host, HostMemType::pageable},
      {S::pinned_host, S::pinned_host, false, "memcpyHtoH", TransferDir::host_to_host, HostMemType::page_locked},
  };
  for (const auto& c : cases) {
    const CopyKind k = classify_copy(c.src, c.dst, c.async);
    INFO(c.method);
    CHECK(k.method == c.method);
    CHECK(k.dir == c.dir);
    CHECK(k.host_mem_type == c.host);
  }
}

TEST_CASE("copies between contexts are peer copies", "[copies]") {
  CHECK(peer_copy(false).method == "memcpyPtoP");
  CHECK(peer_copy(true).method == "memcpyPtoPasync");
  CHECK(peer_copy(true).dir == TransferDir::peer);
  CHECK(!peer_copy(false).host_mem_type);
}

TEST_CASE("a copy's ends from its method name, for every method the logs use", "[copies]") {
  using E = CopyEnd;
  CHECK(copy_ends("memcpyHtoD") == CopyEnds{E::host, E::device});
  CHECK(copy_ends("memcpyDtoHasync") == CopyEnds{E::device, E::host});
  CHECK(copy_ends("memcpyAtoA") == CopyEnds{E::array, E::array});
  CHECK(copy_ends("memcpyHtoHasync") == CopyEnds{E::host, E::host});
  CHECK(copy_ends("memcpyPtoP") == CopyEnds{E::peer, E::peer});
  CHECK(copy_ends("memcpyDtoA") == CopyEnds{E::device, E::array});
  for (const char* not_a_copy : {"memset", "_Z4spiny", "memcpy", "memcpyXtoD", "memcpyHxD", ""}) {
    INFO(not_a_copy);
    CHECK_FALSE(copy_ends(not_a_copy).has_value());
  }
}
