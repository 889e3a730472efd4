#pragma once
// A first-in first-out queue in one array used as a ring (std::deque allocates a node
// per few elements and pays for its map on every push). A pushed element is one that an
// earlier pop left, as that pop left it, with the capacity of its vectors: a queue whose
// length stays bounded allocates nothing. The array doubles when full.
// Not thread-safe.
#include <cstddef>
#include <utility>
#include <vector>

namespace computeprof::shim {

template <typename T>
class RingQueue {
 public:
  // The new last element, as a pop left it (default-constructed the first time): the
  // caller sets every field it reads later.
  T& push_back() {
    if (size_ == slots_.size()) grow();
    T& slot = slots_[(front_ + size_) & (slots_.size() - 1)];
    ++size_;
    return slot;
  }
  // By value: `value` may be an element that growing would move.
  void push_back(T value) { push_back() = std::move(value); }

  // The `i`-th element from the front.
  T& operator[](std::size_t i) { return slots_[(front_ + i) & (slots_.size() - 1)]; }
  const T& operator[](std::size_t i) const { return slots_[(front_ + i) & (slots_.size() - 1)]; }
  T& front() { return slots_[front_]; }
  const T& front() const { return slots_[front_]; }
  void pop_front() {
    front_ = (front_ + 1) & (slots_.size() - 1);
    --size_;
  }

  // Every element popped at once.
  void clear() {
    front_ = 0;
    size_ = 0;
  }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

 private:
  static constexpr std::size_t kInitialCapacity = 64;

  // Out of line: the common push does not pay for its frame.
  [[gnu::noinline]] void grow() {
    std::vector<T> bigger(slots_.empty() ? kInitialCapacity : 2 * slots_.size());
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move((*this)[i]);
    slots_ = std::move(bigger);
    front_ = 0;
  }

  std::vector<T> slots_;  // a power of two long
  std::size_t front_ = 0;
  std::size_t size_ = 0;
};

}  // namespace computeprof::shim
