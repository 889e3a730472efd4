#pragma once
// What an object made at every operation (a record, an expected operation) starts as.

namespace computeprof::shim {

// A default-made T to copy from: for a large T, copying it in costs a third fewer
// instructions than the string store that T{} compiles to, one instruction per word.
// The empty asm hides the blank's contents, or the compiler would turn the copy back
// into that store.
template <typename T>
const T& blank() {
  static constexpr T kBlank{};
  const T* blank = &kBlank;
  asm("" : "+r"(blank));
  return *blank;
}

}  // namespace computeprof::shim
