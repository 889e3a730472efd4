/* The exported symbols of the calls that make operations (RECORDED_ENTRY in
   cuda_entries.def). While CUDA operations are not recorded (profiling off or paused)
   and the driver's function is known, a trampoline jumps straight to it: a few
   instructions, the arguments untouched, no frame (what a system-wide install costs
   every program). Otherwise it jumps to the shim's wrapper,
   computeprof_recorded_<symbol>, which also finds the driver's function the first time.
   computeprof_real_functions holds one pointer per entry, in the list's order; the
   state is shim/process/'s (profiling_state.hpp; docs/design.md says why intercept/
   may read it), its values RecordingState's: off 1, paused 2.
   The allocation calls (MEMORY_ENTRY) do the same on computeprof_memory_state
   (MemoryTracing: off 1): straight to the driver unless memtrace is on or undecided;
   their wrappers are computeprof_memory_<symbol>. The calls apitrace traces (API_ENTRY)
   likewise on computeprof_api_state (ApiTracing: off 1), to computeprof_api_<symbol>. */
        .set    computeprof_entry_index, 0

/* TRAMPOLINE_TO(sym, state, passing, wrapper): straight to the driver while the byte
   `state` is one of the values 1 to `passing` (one unsigned compare of state - 1),
   else to `wrapper`. */
#if defined(__x86_64__)
#define TRAMPOLINE_TO(sym, state, passing, wrapper)                       \
        .globl  sym;                                                      \
        .type   sym, @function;                                           \
sym:    .cfi_startproc;                                                   \
        movq    computeprof_real_functions+8*computeprof_entry_index(%rip), %rax; \
        testq   %rax, %rax;                                               \
        je      1f;                                                       \
        movzbl  state(%rip), %r11d;                                       \
        subl    $1, %r11d;                                                \
        cmpl    $(passing - 1), %r11d;                                    \
        ja      1f;                                                       \
        jmp     *%rax;                                                    \
1:      jmp     wrapper;                                                  \
        .cfi_endproc;                                                     \
        .size   sym, .-sym
#elif defined(__aarch64__)
#define TRAMPOLINE_TO(sym, state, passing, wrapper)                       \
        .globl  sym;                                                      \
        .type   sym, %function;                                           \
sym:    .cfi_startproc;                                                   \
        adrp    x16, computeprof_real_functions+8*computeprof_entry_index; \
        ldr     x16, [x16, #:lo12:computeprof_real_functions+8*computeprof_entry_index]; \
        cbz     x16, 1f;                                                  \
        adrp    x17, state;                                               \
        ldrb    w17, [x17, #:lo12:state];                                 \
        sub     w17, w17, #1;                                             \
        cmp     w17, #(passing - 1);                                      \
        b.hi    1f;                                                       \
        br      x16;                                                      \
1:      b       wrapper;                                                  \
        .cfi_endproc;                                                     \
        .size   sym, .-sym
#else
#error "computeprof: trampolines not written for this architecture"
#endif
// CUDA operations pass while off (1) or paused (2); allocations while memtrace is off (1),
// API calls while apitrace is off (1).
#define TRAMPOLINE(sym) TRAMPOLINE_TO(sym, computeprof_cuda_state, 2, computeprof_recorded_##sym)
#define MEMORY_TRAMPOLINE(sym) TRAMPOLINE_TO(sym, computeprof_memory_state, 1, computeprof_memory_##sym)
#define API_TRAMPOLINE(sym) TRAMPOLINE_TO(sym, computeprof_api_state, 1, computeprof_api_##sym)

        .text
#define ENTRY(sym, base, version, per_thread, pfn) \
        .set    computeprof_entry_index, computeprof_entry_index + 1
#define RECORDED_ENTRY(sym, base, version, per_thread, pfn) \
        TRAMPOLINE(sym);                                    \
        .set    computeprof_entry_index, computeprof_entry_index + 1
#define MEMORY_ENTRY(sym, base, version, per_thread, pfn)   \
        MEMORY_TRAMPOLINE(sym);                             \
        .set    computeprof_entry_index, computeprof_entry_index + 1
#define API_ENTRY(sym, base, version, per_thread, pfn)      \
        API_TRAMPOLINE(sym);                                \
        .set    computeprof_entry_index, computeprof_entry_index + 1
#include "shim/intercept/cuda_entries.def"

        .section .note.GNU-stack,"",%progbits
