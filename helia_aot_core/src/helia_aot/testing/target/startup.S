/*
 * startup.S: reset and exception entry for the QEMU boards of helia_aot.testing.cross
 * (mps3-an547 = Cortex-M55 with MVE, mps2-an386 = Cortex-M4 with FPv4-SP).
 *
 * Assembly rather than C so that no compiler-generated FPU or MVE instruction can run before
 * CPACR grants access to coprocessors 10 and 11.
 *
 * From the linker script: __stack_top, __stack_limit, __stack_guard, __fault_stack_top, __data_load,
 * __data_start, __data_end, __bss_start, __bss_end.
 */
    .syntax unified
    .thumb

/* The board resets with VTOR at address 0 (AN547: the ITCM, linked at its Secure alias
 * 0x10000000; AN386: SSRAM1), where the linker script places this table first. */
    .section .vectors, "a", %progbits
    .align 8
    .globl harness_vectors
    .type harness_vectors, %object
harness_vectors:
    .word __stack_top              /*  0 initial main stack pointer */
    .word Reset_Handler            /*  1 reset */
    .rept 5
    .word harness_exception        /*  2 NMI, 3 HardFault, 4 MemManage, 5 BusFault, 6 UsageFault */
    .endr
    .word harness_exception        /*  7 SecureFault (Armv8-M) */
    .word 0, 0, 0                  /*  8-10 reserved */
    .word harness_exception        /* 11 SVCall */
    .word harness_exception        /* 12 DebugMonitor */
    .word 0                        /* 13 reserved */
    .word harness_exception        /* 14 PendSV */
    .word harness_exception        /* 15 SysTick */
    .rept 32
    .word harness_exception        /* 16+ external interrupts: none is enabled */
    .endr
    .size harness_vectors, . - harness_vectors

    .section .text.Reset_Handler, "ax", %progbits
    .align 2
    .globl Reset_Handler
    .type Reset_Handler, %function
    .thumb_func
Reset_Handler:
    /* CPACR.CP10/CP11 = full access: the FPU, and on the M55 also MVE (Helium), which is
     * gated by the same two fields. */
    ldr   r0, =0xE000ED88
    ldr   r1, [r0]
    orr   r1, r1, #(0xF << 20)
    str   r1, [r0]
    dsb
    isb

    /* SHCSR: report MemManage, BusFault and UsageFault (and SecureFault on Armv8-M) as
     * themselves instead of escalating them all to HardFault, so the report names the cause. */
    ldr   r0, =0xE000ED24
    ldr   r1, [r0]
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    orr   r1, r1, #(0xF << 16)
#else
    orr   r1, r1, #(0x7 << 16)
#endif
    str   r1, [r0]

#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    /* MSPLIM: a stack overflow becomes a UsageFault (STKOF) instead of a silent overwrite. */
    ldr   r0, =__stack_limit
    msr   msplim, r0
#else
    /* Armv7E-M has no stack limit register, and the AN386 ignores writes below its RAM, so an
     * MPU region with no access right under the stack turns an overflow into a MemManage
     * fault. Region 0 (RNR) at __stack_guard (RBAR), RASR: XN, AP = no access, SIZE = 2^15
     * bytes, enabled. MPU_CTRL: PRIVDEFENA keeps the default map everywhere else. */
    ldr   r0, =0xE000ED98
    movs  r1, #0
    str   r1, [r0]
    ldr   r1, =__stack_guard
    str   r1, [r0, #4]
    ldr   r1, =((1 << 28) | (14 << 1) | 1)
    str   r1, [r0, #8]
    movs  r1, #5
    str   r1, [r0, #-4]
    dsb
    isb
#endif

#if defined(__ARM_FEATURE_MVE)
    /* CCR.LOB: enable the low-overhead-branch cache as CMSIS SystemInit does on Armv8.1-M
     * silicon; emulation ignores it, but the binary then matches what runs on the part. */
    ldr   r0, =0xE000ED14
    ldr   r1, [r0]
    orr   r1, r1, #(1 << 19)
    str   r1, [r0]
    dsb
    isb
#endif

    /* .data: copy the initial values from their load address. Both ends are 8-aligned. */
    ldr   r0, =__data_load
    ldr   r1, =__data_start
    ldr   r2, =__data_end
1:  cmp   r1, r2
    bhs   2f
    ldr   r3, [r0], #4
    str   r3, [r1], #4
    b     1b
2:
    /* .bss: zero it (arenas included). */
    movs  r3, #0
    ldr   r1, =__bss_start
    ldr   r2, =__bss_end
3:  cmp   r1, r2
    bhs   4f
    str   r3, [r1], #4
    b     3b
4:
    movs  r0, #0
    movs  r1, #0
    bl    main
    /* exit() flushes stdio before semihosting ends the run with main's status. */
    bl    exit
5:  b     5b
    .size Reset_Handler, . - Reset_Handler
    .ltorg

/* Every exception except reset. The main stack may be what overflowed, so the report runs on
 * a private stack below the stack limit; MSPLIM is cleared first so that moving there is legal.
 * r0 = the stacked exception frame, r1 = EXC_RETURN. */
    .section .text.harness_exception, "ax", %progbits
    .align 2
    .globl harness_exception
    .type harness_exception, %function
    .thumb_func
harness_exception:
    tst   lr, #4
    ite   eq
    mrseq r0, msp
    mrsne r0, psp
    mov   r1, lr
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
    movs  r2, #0
    msr   msplim, r2
#endif
    ldr   r2, =__fault_stack_top
    mov   sp, r2
    bl    harness_fault_report
6:  b     6b
    .size harness_exception, . - harness_exception
    .ltorg

/* Region markers for the instruction-count plugin. Each is one BX LR in a section of its own,
 * so no optimisation level or LTO can inline or merge it, and the plugin knows exactly which
 * two instructions (this BX LR and the BL to the end marker) to leave out of a region. */
    .section .text.harness_markers, "ax", %progbits
    .align 2
    .globl harness_region_begin
    .type harness_region_begin, %function
    .thumb_func
harness_region_begin:
    bx    lr
    .size harness_region_begin, . - harness_region_begin

    .align 2
    .globl harness_region_end
    .type harness_region_end, %function
    .thumb_func
harness_region_end:
    bx    lr
    .size harness_region_end, . - harness_region_end
