#pragma once
// A call that comes back into the shim while the same thread is inside the real call of
// an operation the shim records or traces: another interposer after the shim that calls
// the shim's wrapper again, or a lookup that made one wrapper's next function another
// wrapper (docs/design.md, "Stacking"). It is the same operation: the nested call goes
// on to its next layer unrecorded.

namespace computeprof::shim {

namespace detail {
// Constant-initialised (constinit): read inline with no thread-local wrapper call.
extern constinit thread_local bool t_inside_recorded_call;
}  // namespace detail

// Whether the calling thread is inside the real call of an operation being recorded.
// Inline: asked per recorded operation, one load.
inline bool inside_recorded_call() { return detail::t_inside_recorded_call; }

// For its lifetime, the calling thread is inside a recorded operation's real call.
class RecordedCallScope {
 public:
  RecordedCallScope() : outer_(detail::t_inside_recorded_call) { detail::t_inside_recorded_call = true; }
  ~RecordedCallScope() { detail::t_inside_recorded_call = outer_; }
  RecordedCallScope(const RecordedCallScope&) = delete;
  RecordedCallScope& operator=(const RecordedCallScope&) = delete;

 private:
  bool outer_;
};

}  // namespace computeprof::shim
