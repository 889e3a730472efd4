/* Jumps to the driver (computeprof_table) unless computeprof_state says to record;
   names in comments, such as computeprof_in_comment, are no uses. */
        .set    computeprof_index, 0
#define ENTRY(sym)                                              \
        .globl  sym;                                            \
sym:    movq    computeprof_table+8*computeprof_index(%rip), %rax; \
        cmpb    $1, computeprof_state(%rip); /* shim/process/ */ \
        jne     1f;                                             \
        jmp     *%rax;                                          \
1:      jmp     computeprof_wrapped_##sym;                      \
        .set    computeprof_index, computeprof_index + 1
#include "shim/intercept/entries.def"

        .globl  computeprof_own
computeprof_own:
        call    computeprof_nowhere  // declared by no folder
        call    _ZN11computeprof4shim6helperEv
        jmp     computeprof_own
