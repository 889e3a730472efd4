#pragma once
// Writes the run file's records (docs/format.md, "Run file") into chunks: strings,
// NVTX names and call stacks once each, before the first record that uses them; an
// operation as the fields that differ from the previous one's in its chunk, times as
// differences. Encoding allocates only when a buffer grows or a string is new; the
// caller writes the chunks (take_chunk) where and when it likes.
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "records/api_call.hpp"
#include "records/context.hpp"
#include "records/memory_event.hpp"
#include "records/range_event.hpp"
#include "records/range_table.hpp"
#include "records/record.hpp"
#include "runfile/format.hpp"
#include "symbols/frame.hpp"

namespace computeprof::runfile {

// What the exports know of the process that can change while it runs.
struct ProcessFacts {
  bool cuda_runtime_present = false;
  // The exports' time 0 on both clocks (docs/format.md, "Exports"); 0 until settled.
  std::uint64_t export_wall_ns = 0;
  std::uint64_t export_monotonic_ns = 0;
  friend bool operator==(const ProcessFacts&, const ProcessFacts&) = default;
};

// Where the records that name things (strings, contexts, call stacks, NVTX names,
// domains and paths) go: into the chunk of the first record that uses them, as in a run
// file; or gathered apart (take_dictionary), for a window of chunks that drops its
// oldest while what they name stays (the flight recorder).
enum class DictionaryPlacement : unsigned char { in_chunks, apart };

class RunEncoder {
 public:
  // The frames of a call stack, by its id (empty where none are known).
  using StackFrames = std::function<const std::vector<symbols::Frame>&(std::uint32_t stack_id)>;

  // `ranges`: the NVTX names records refer to; `stacks`: null to write no frames.
  RunEncoder(const records::RangeTable& ranges, StackFrames stacks,
             DictionaryPlacement dictionary = DictionaryPlacement::in_chunks);

  // An operation of `context` (its context record first, the first time).
  void operation(const records::ContextInfo& context, const records::Record& record);
  void memory(const records::MemoryEvent& event);
  void range(const records::RangeEvent& event);
  void api_call(const records::ApiCall& call);
  // Written when they differ from those written last.
  void facts(const ProcessFacts& facts);
  // The process's output ended: nothing follows.
  void end();

  // What was encoded since the last call, as one chunk; empty when nothing was. Valid
  // until the next encoding or take. The next chunk's records are coded afresh.
  std::string_view take_chunk();
  // The payload's bytes gathered for the next chunk.
  std::size_t pending_bytes() const { return buffer_.size() - kReserved; }
  // DictionaryPlacement::apart: the records that name things, gathered since the last
  // call, as one chunk; empty when there were none. Every chunk take_chunk gave needs
  // the dictionary's chunks taken up to the same moment, read before it.
  std::string_view take_dictionary();

 private:
  static constexpr std::size_t kReserved = 16;  // format.hpp's kChunkHeaderBytes

  // The chunk gathered in `buffer` (its payload after kReserved bytes), framed, into
  // chunk_; `buffer` starts the next one.
  std::string_view frame(std::string& buffer);

  // The id of a string that lives as long as the encoder's input (kernel names, entry
  // points); written the first time.
  std::uint32_t stable_string(std::string_view s);
  // The id of any string, copied the first time.
  std::uint32_t string(std::string_view s);
  std::uint32_t new_string(std::string_view kept);
  void context(const records::ContextInfo& context);
  void stack(std::uint32_t id);
  // The NVTX names, domains and paths added to the table since last time.
  void sync_ranges();
  // Starts a record of `kind`; finish_record writes its body's length before it, into
  // the chunk, or where the dictionary goes.
  void begin_record();
  void finish_record(std::uint8_t kind);
  void finish_dictionary_record(RecordKind kind);

  const records::RangeTable& ranges_;
  StackFrames stacks_;
  std::string buffer_;      // kReserved bytes, then the payload
  std::string dictionary_;  // DictionaryPlacement::apart: as buffer_, the records that name things
  std::string* dictionary_out_;  // &buffer_ or &dictionary_
  std::string chunk_;   // the chunk take_chunk gave last
  std::string body_;    // the record being made
  struct PointerKey {
    const char* data;
    std::size_t size;
    friend bool operator==(const PointerKey&, const PointerKey&) = default;
  };
  struct PointerHash {
    std::size_t operator()(const PointerKey& k) const {
      return std::hash<const void*>{}(k.data) * 31 + k.size;
    }
  };
  std::unordered_map<PointerKey, std::uint32_t, PointerHash> by_pointer_;
  std::unordered_map<std::string_view, std::uint32_t> by_text_;
  std::deque<std::string> kept_;  // copies of strings that do not live on
  std::uint32_t strings_ = 0;
  std::vector<bool> contexts_written_;
  std::vector<bool> stacks_written_;
  std::size_t names_written_ = 1;  // id 0 (empty) is every table's
  std::size_t domains_written_ = 1;
  std::size_t paths_written_ = 1;
  records::Record previous_;
  int previous_context_ = 0;
  records::MemoryEvent previous_memory_;
  records::RangeEvent previous_range_;
  records::ApiCall previous_call_;
  ProcessFacts facts_;
  bool facts_written_ = false;
};

}  // namespace computeprof::runfile
