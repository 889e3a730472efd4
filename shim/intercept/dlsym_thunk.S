/* The exported dlsym, under glibc's two versions of it (dlsym@@GLIBC_2.34, the default,
   and dlsym@GLIBC_<base>, what older programs refer to), so that whoever looks the next
   dlsym up, by name or by version, finds this one. It asks computeprof_dlsym_substitute (handle, name, caller's
   return address) whether the lookup is one the shim answers (a wrapped driver entry
   point on a libcuda handle, asked by the application); if not, it
   TAIL-JUMPS to glibc's dlsym so that glibc sees the application's return address:
   RTLD_NEXT and the RTLD_DEFAULT namespace are resolved from the caller. */
#if !defined(__x86_64__) && !defined(__aarch64__)
#error "computeprof: dlsym thunk not written for this architecture"
#endif
#define VERSIONED(name, version) name@version
/* %function, not @function: "@" starts a comment on aarch64. */
        .text
        .globl  computeprof_dlsym
        .type   computeprof_dlsym, %function
        .symver computeprof_dlsym, dlsym@@GLIBC_2.34
        .globl  computeprof_dlsym_base
        .set    computeprof_dlsym_base, computeprof_dlsym
        .symver computeprof_dlsym_base, VERSIONED(dlsym, GLIBC_BASE_VERSION)
computeprof_dlsym:
        .cfi_startproc
#if defined(__x86_64__)
        pushq   %rdi
        .cfi_adjust_cfa_offset 8
        pushq   %rsi
        .cfi_adjust_cfa_offset 8
        subq    $8, %rsp
        .cfi_adjust_cfa_offset 8
        movq    24(%rsp), %rdx
        call    computeprof_dlsym_substitute
        addq    $8, %rsp
        .cfi_adjust_cfa_offset -8
        popq    %rsi
        .cfi_adjust_cfa_offset -8
        popq    %rdi
        .cfi_adjust_cfa_offset -8
        testq   %rax, %rax
        jnz     1f
        jmp     *computeprof_real_dlsym(%rip)
1:      ret
#else /* __aarch64__ */
        stp     x29, x30, [sp, #-32]!
        .cfi_def_cfa_offset 32
        .cfi_offset 29, -32
        .cfi_offset 30, -24
        mov     x29, sp
        stp     x0, x1, [sp, #16]
        mov     x2, x30
        bl      computeprof_dlsym_substitute
        cbnz    x0, 1f
        ldp     x0, x1, [sp, #16]
        ldp     x29, x30, [sp], #32
        .cfi_def_cfa_offset 0
        adrp    x16, computeprof_real_dlsym
        ldr     x16, [x16, #:lo12:computeprof_real_dlsym]
        br      x16
1:      ldp     x29, x30, [sp], #32
        ret
#endif
        .cfi_endproc
        .size   computeprof_dlsym, .-computeprof_dlsym
        .section .note.GNU-stack,"",%progbits
