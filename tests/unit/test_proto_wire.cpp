// The protobuf wire format of the Perfetto trace (traces/proto_wire.hpp), byte for byte
// as the protobuf encoding documentation gives it.
#include <cstdint>
#include <limits>
#include <string>

#include "catch.hpp"

#include "traces/proto_wire.hpp"

using namespace computeprof::traces::proto;

namespace {

std::string bytes(std::initializer_list<int> values) {
  std::string s;
  for (int v : values) s.push_back(static_cast<char>(v));
  return s;
}

}  // namespace

TEST_CASE("proto wire: varints of seven bits a byte, lowest first", "[traces][pftrace]") {
  std::string out;
  put_varint(out, 0);
  put_varint(out, 127);
  put_varint(out, 128);
  put_varint(out, 300);
  CHECK(out == bytes({0x00, 0x7f, 0x80, 0x01, 0xac, 0x02}));
  out.clear();
  put_varint(out, std::numeric_limits<std::uint64_t>::max());
  CHECK(out == bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}));
  CHECK(varint_size(0) == 1);
  CHECK(varint_size(127) == 1);
  CHECK(varint_size(128) == 2);
  CHECK(varint_size(16383) == 2);
  CHECK(varint_size(16384) == 3);
  CHECK(varint_size(std::numeric_limits<std::uint64_t>::max()) == 10);
}

TEST_CASE("proto wire: tags, signed numbers, doubles and bytes", "[traces][pftrace]") {
  std::string out;
  put_uint(out, 1, 150);
  CHECK(out == bytes({0x08, 0x96, 0x01}));
  out.clear();
  put_uint(out, 36, 5);  // a field number past 15: a tag of two bytes
  CHECK(out == bytes({0xa0, 0x02, 0x05}));
  out.clear();
  put_int(out, 4, -1);
  CHECK(out == bytes({0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}));
  out.clear();
  put_double(out, 5, 1.0);
  CHECK(out == bytes({0x29, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  out.clear();
  put_bytes(out, 2, "testing");
  CHECK(out == bytes({0x12, 0x07}) + "testing");
}

TEST_CASE("proto wire: a nested message's length written at its end, the body moved when it needs two bytes",
          "[traces][pftrace]") {
  std::string out = "x";
  {
    NestedMessage m(out, 3);
    put_uint(out, 1, 150);
  }
  CHECK(out == "x" + bytes({0x1a, 0x03, 0x08, 0x96, 0x01}));

  const std::string body127(125, 'a');
  out.clear();
  {
    NestedMessage m(out, 1);
    put_bytes(out, 2, body127);  // 2 + 125 bytes: the longest body of one length byte
  }
  CHECK(out == bytes({0x0a, 0x7f, 0x12, 0x7d}) + body127);

  const std::string body128(126, 'b');
  out.clear();
  {
    NestedMessage outer(out, 1);
    NestedMessage inner(out, 2);
    put_bytes(out, 2, body128);  // 2 + 126 = 128 bytes
    inner.end();
    put_uint(out, 3, 1);
  }
  // inner: tag, length 128 as two bytes, body; outer: 1 + 2 + 128 + 2 = 133 bytes.
  CHECK(out == bytes({0x0a, 0x85, 0x01, 0x12, 0x80, 0x01, 0x12, 0x7e}) + body128 + bytes({0x18, 0x01}));
}
