/* units.S: instruction sequences with documented cycle counts (docs/cycles.md, "Unit programs").
 * Each function takes a pointer in r0, opens a harness region, runs exactly its sequence and
 * closes the region, so the region holds nothing else. */
    .syntax unified
    .thumb
    .text

    .macro UNIT name
    .global \name
    .type \name, %function
    .p2align 2
    .thumb_func
\name:
    push {r4, r5, r6, lr}
    mov r4, r0
    bl harness_region_begin
    .endm

    .macro END_UNIT
    bl harness_region_end
    pop {r4, r5, r6, pc}
    .endm

/* Four loads, each addressed by the one before (r4 points at itself). */
UNIT unit_load_chain
    ldr r5, [r4]
    ldr r5, [r5]
    ldr r5, [r5]
    ldr r5, [r5]
END_UNIT

/* Four independent loads from neighbouring words. */
UNIT unit_load_burst
    ldr r0, [r4]
    ldr r1, [r4, #4]
    ldr r2, [r4, #8]
    ldr r3, [r4, #12]
END_UNIT

/* A countdown loop of four iterations: three taken branches and one fall-through. */
UNIT unit_branch_loop
    movs r5, #4
1:  subs r5, #1
    bne 1b
END_UNIT

/* One load from where r4 points (DTCM data or MRAM constants). */
UNIT unit_one_load
    ldr r5, [r4]
END_UNIT

/* Four independent 16-bit instructions: two pairs of an ADDS and a MOVS (immediate). */
UNIT unit_dual_issue
    adds r0, r1, r2
    movs r3, #1
    adds r5, r6, r1
    movs r2, #7
END_UNIT

#if defined(__ARM_FEATURE_MVE) && __ARM_FEATURE_MVE
/* A low-overhead loop of four iterations: DLS, then a body of one ADDS and the LE. */
UNIT unit_low_overhead_loop
    movs r5, #4
    dls lr, r5
1:  adds r6, #1
    le lr, 1b
END_UNIT

/* Two independent Helium instructions on the integer pipe. */
UNIT unit_mve_same_pipe
    vadd.i32 q0, q1, q2
    vadd.i32 q3, q4, q5
END_UNIT

/* Two independent Helium instructions on different pipes (integer, then multiply). */
UNIT unit_mve_other_pipe
    vadd.i32 q0, q1, q2
    vmul.i32 q3, q4, q5
END_UNIT

/* A VMUL (latency 2) whose result the next instruction, on the other pipe, reads. */
UNIT unit_mve_dependent
    vmul.i32 q0, q1, q2
    vadd.i32 q3, q0, q4
END_UNIT

/* One 128-bit vector load from where r4 points (MRAM constants): two 64-bit beats. */
UNIT unit_mve_load
    vldrw.u32 q0, [r4]
END_UNIT

/* A vector store, then a vector load (the load waits for the store). */
UNIT unit_mve_store_load
    vstrw.32 q0, [r4]
    vldrw.u32 q1, [r4, #16]
END_UNIT
#endif
