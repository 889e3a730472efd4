#pragma once
// The run file, `<stem>.cprof` (docs/format.md, "Run file"): what the profiled process
// writes while it runs, and every export is made from afterwards. A header, then
// chunks, one per flush point, each framed and checksummed so that a reader takes
// every whole chunk of a killed process and stops, with the byte offset, at a torn one.
#include <cstddef>
#include <cstdint>

namespace computeprof::runfile {

// "CPROFRUN": the first eight bytes.
inline constexpr char kMagic[8] = {'C', 'P', 'R', 'O', 'F', 'R', 'U', 'N'};
// A reader refuses a newer major version; it reads an older or newer minor one (a newer
// minor's record kinds it does not know are skipped by their length). Version 2: each
// chunk's records are coded against none before them (differences start afresh);
// version 1's ran on across chunks, and is still read.
inline constexpr std::uint16_t kMajorVersion = 2;
inline constexpr std::uint16_t kMinorVersion = 1;  // 1: API calls (apitrace)
// The first major version whose chunks are each coded afresh.
inline constexpr std::uint16_t kChunksCodedAlone = 2;

// magic, major, minor, the header body's length (u32, little-endian), then the body.
inline constexpr std::size_t kPreambleBytes = 16;
// The header body's length at most.
inline constexpr std::uint32_t kMaxHeaderBytes = 1u << 20;

// Each chunk: its magic "CPRC", the payload's length (u32) and the payload's checksum
// (u64, checksum.hpp), little-endian, then the payload: records.
inline constexpr std::uint32_t kChunkMagic = 0x43525043;  // "CPRC" little-endian
inline constexpr std::size_t kChunkHeaderBytes = 16;
// A chunk's payload at most: a longer length is corruption, not a chunk.
inline constexpr std::uint32_t kMaxChunkBytes = 64u << 20;

// A record: its kind (varint), its body's length (varint), its body.
enum class RecordKind : std::uint8_t {
  string = 1,      // the next string id's bytes
  context = 2,     // a context as records know it
  operation = 3,   // a kernel, copy, memset or graph launch, coded against the previous one
  memory = 4,      // an allocation or free (memtrace)
  range = 5,       // an NVTX event
  range_name = 6,  // the next NVTX name id's text
  range_domain = 7,
  range_path = 8,
  stack = 9,       // a call stack's frames (callstack)
  facts = 10,      // what the exports know of the process that can change while it runs
  end = 11,        // the process ended its output: nothing follows
  api_call = 12,   // a CUDA API call (apitrace; minor version 1)
};
inline constexpr std::uint8_t kLastRecordKind = 12;

// Which fields of an operation differ from the previous operation's (the rest are its
// values): the header varint's bits above the record kind and method_is_plain.
enum OperationField : std::uint32_t {
  field_method = 1u << 0,
  field_api = 1u << 1,
  field_gputime = 1u << 2,  // not gpu_end - gpu_start
  field_stream = 1u << 3,
  field_transfer_bytes = 1u << 4,
  field_grid = 1u << 5,
  field_block = 1u << 6,
  field_dynamic_smem = 1u << 7,
  field_static_smem = 1u << 8,
  field_registers = 1u << 9,
  field_local_block_size = 1u << 10,
  field_thread = 1u << 11,
  field_stack = 1u << 12,
  field_range_path = 1u << 13,
  field_occupancy = 1u << 14,
  field_cache_config = 1u << 15,
  field_counter_state = 1u << 16,
  field_transfer = 1u << 17,  // transfer_dir and host_mem_type
  field_context = 1u << 18,
};
inline constexpr unsigned kOperationFieldShift = 3;
inline constexpr std::uint32_t kAllOperationFields = (1u << 19) - 1;

}  // namespace computeprof::runfile
