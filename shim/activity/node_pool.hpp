#pragma once
// A memory resource for containers whose nodes come and go at a steady rate (the
// matcher's maps: a few nodes per operation). Freed blocks are kept on a free list per
// size and handed out again: two pointer moves per allocation and per free, where
// malloc costs hundreds of instructions once its per-thread cache overflows and
// std::pmr::unsynchronized_pool_resource searches its chunks on every free. Blocks
// above kLargest (bucket arrays) go to the upstream resource. Memory returns to the
// upstream resource only with the pool. Not thread-safe.
#include <array>
#include <cstddef>
#include <memory_resource>
#include <vector>

namespace computeprof::shim {

class NodePool : public std::pmr::memory_resource {
 public:
  static constexpr std::size_t kGranule = 16;
  static constexpr std::size_t kLargest = 1024;
  static constexpr std::size_t kBlocksPerChunk = 64;

  explicit NodePool(std::pmr::memory_resource* upstream = std::pmr::new_delete_resource()) : upstream_(upstream) {}
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;
  ~NodePool() override {
    for (const Chunk& c : chunks_) upstream_->deallocate(c.memory, c.bytes, alignof(std::max_align_t));
  }

 private:
  struct FreeBlock {
    FreeBlock* next;
  };
  struct Chunk {
    void* memory;
    std::size_t bytes;
  };

  static std::size_t size_class(std::size_t bytes) { return (bytes + kGranule - 1) / kGranule; }

  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (bytes > kLargest || alignment > alignof(std::max_align_t)) return upstream_->allocate(bytes, alignment);
    const std::size_t c = size_class(bytes);
    FreeBlock*& head = free_[c];
    if (!head) refill(c);
    FreeBlock* block = head;
    head = block->next;
    return block;
  }

  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    if (bytes > kLargest || alignment > alignof(std::max_align_t)) {
      upstream_->deallocate(p, bytes, alignment);
      return;
    }
    FreeBlock*& head = free_[size_class(bytes)];
    head = new (p) FreeBlock{head};
  }

  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

  // Carves a chunk into blocks of size class `c` (c * kGranule bytes, a multiple of
  // max_align_t's alignment) onto the free list.
  void refill(std::size_t c) {
    const std::size_t block = c * kGranule;
    const std::size_t bytes = block * kBlocksPerChunk;
    auto* memory = static_cast<std::byte*>(upstream_->allocate(bytes, alignof(std::max_align_t)));
    chunks_.push_back({memory, bytes});
    for (std::size_t i = kBlocksPerChunk; i-- > 0;) free_[c] = new (memory + i * block) FreeBlock{free_[c]};
  }

  std::pmr::memory_resource* upstream_;
  std::array<FreeBlock*, kLargest / kGranule + 1> free_{};
  std::vector<Chunk> chunks_;
};

}  // namespace computeprof::shim
