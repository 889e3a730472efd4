#pragma once
// Reads a run file (docs/format.md, "Run file") back into the records the process
// wrote, in order, for a visitor: every whole chunk up to the end record, or up to the
// first chunk that is torn, corrupt or hostile, which is one error with its byte
// offset. Strings are views into the file's bytes, which the caller keeps while the
// visitor runs; nothing is trusted: every id, count, kind and length is checked.
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "records/api_call.hpp"
#include "records/context.hpp"
#include "records/memory_event.hpp"
#include "records/range_event.hpp"
#include "records/range_table.hpp"
#include "records/record.hpp"
#include "runfile/run_encoder.hpp"
#include "runfile/run_header.hpp"
#include "symbols/frame.hpp"

namespace computeprof::runfile {

class RunVisitor {
 public:
  virtual ~RunVisitor() = default;
  virtual void operation(const records::ContextInfo& context, const records::Record& record) = 0;
  virtual void memory(const records::MemoryEvent& /*event*/) {}
  virtual void range(const records::RangeEvent& /*event*/) {}
  virtual void api_call(const records::ApiCall& /*call*/) {}
  // Before the first record, and whenever they change.
  virtual void facts(const ProcessFacts& /*facts*/) {}
  // After each whole chunk: the file's bytes read so far.
  virtual void chunk_read(std::uint64_t /*bytes*/) {}
};

struct ReadSummary {
  std::uint64_t operations = 0;
  std::uint64_t memory_events = 0;
  std::uint64_t range_events = 0;
  std::uint64_t api_calls = 0;
  std::uint64_t chunks = 0;
  std::uint64_t bytes = 0;  // read: the header and every whole chunk
  bool ended = false;       // the end record was read: the process finished its output
  std::optional<RunFileError> error;
};

class RunReader {
 public:
  // `file`: the whole file, or the part of it written so far.
  explicit RunReader(std::string_view file);
  RunReader(const RunReader&) = delete;
  RunReader& operator=(const RunReader&) = delete;

  // Null (and header_error() says why) when the file cannot be read at all.
  const RunHeader* header() const { return header_ ? &*header_ : nullptr; }
  const RunFileError& header_error() const { return header_error_; }

  // Every record to the end record or the first error, to `visitor`. Once.
  ReadSummary read(RunVisitor& visitor);

  // The NVTX names, domains and paths read so far.
  const records::RangeTable& ranges() const { return *ranges_; }
  // Stack `id`'s frames as read so far; empty when the file has none for it.
  const std::vector<symbols::Frame>& stack(std::uint32_t id) const;
  // The contexts read so far, by number (empty names where none was read).
  const records::ContextInfo* context(int number) const;

 private:
  struct Decoder;
  std::string_view file_;
  std::optional<RunHeader> header_;
  RunFileError header_error_;
  std::size_t header_bytes_ = 0;
  std::unique_ptr<records::RangeTable> ranges_;
  std::unordered_map<std::uint32_t, std::vector<symbols::Frame>> stacks_;
  std::unordered_map<int, records::ContextInfo> contexts_;
};

}  // namespace computeprof::runfile
