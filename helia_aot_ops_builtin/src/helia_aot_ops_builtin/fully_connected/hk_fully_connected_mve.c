/*
 * helia-aot kernel library: the Helium path of int8 FULLY_CONNECTED (see
 * hk_fully_connected_paths.h): packed pairs of groups in the hk_fc_blocks8 assembly loops where
 * they cover the layer, else eight units per pass of the input row with the requantization on
 * vectors.
 */
#include "hk_fully_connected_paths.h"

#if HK_HAVE_MVE
/* hk_fc_requant_bounded of four accumulators as one vector. With GCC the four VCVTA results
 * land in the lanes of q0 directly, saving the moves through core registers that the compiler
 * makes of vsetq_lane (q0 and q1 are therefore clobbered). */
HK_INLINE int32x4_t fc_requant4(const uint32_t *acc, double s0, double s1, double s2, double s3)
{
#if defined(HK_FC_ASM) && defined(HK_FC_REQUANT_PATH_VCVTA)
    int32x4_t r;
    __asm__("vmov s0, %[a0]\n\t"
            "vcvt.f64.s32 d2, s0\n\t"
            "vmov s1, %[a1]\n\t"
            "vcvt.f64.s32 d3, s1\n\t"
            "vmul.f64 d2, d2, %P[s0]\n\t"
            "vmul.f64 d3, d3, %P[s1]\n\t"
            "vcvta.s32.f64 s0, d2\n\t"
            "vcvta.s32.f64 s1, d3\n\t"
            "vmov s2, %[a2]\n\t"
            "vcvt.f64.s32 d2, s2\n\t"
            "vmov s3, %[a3]\n\t"
            "vcvt.f64.s32 d3, s3\n\t"
            "vmul.f64 d2, d2, %P[s2]\n\t"
            "vmul.f64 d3, d3, %P[s3]\n\t"
            "vcvta.s32.f64 s2, d2\n\t"
            "vcvta.s32.f64 s3, d3\n\t"
            "vmov %q[r], q0"
            : [r] "=w"(r)
            : [a0] "r"(acc[0]), [a1] "r"(acc[1]), [a2] "r"(acc[2]), [a3] "r"(acc[3]),
              [s0] "w"(s0), [s1] "w"(s1), [s2] "w"(s2), [s3] "w"(s3)
            : "d0", "d1", "d2", "d3");
    return r;
#else
    int32x4_t r = vdupq_n_s32(hk_fc_requant_bounded((int32_t)acc[0], s0));
    r = vsetq_lane_s32(hk_fc_requant_bounded((int32_t)acc[1], s1), r, 1);
    r = vsetq_lane_s32(hk_fc_requant_bounded((int32_t)acc[2], s2), r, 2);
    return vsetq_lane_s32(hk_fc_requant_bounded((int32_t)acc[3], s3), r, 3);
#endif
}

/* The offset, the clamp and the store of eight requantized outputs. */
HK_INLINE void fc_store8_mve(const fc_s8_t *k, int32x4_t r0, int32x4_t r1, int8_t *out,
                             int32x4_t lo, int32x4_t hi)
{
    vstrbq_s32(out, vminq_s32(vmaxq_s32(vaddq_n_s32(r0, k->offset), lo), hi));
    vstrbq_s32(out + 4, vminq_s32(vmaxq_s32(vaddq_n_s32(r1, k->offset), lo), hi));
}

#if defined(HK_FC_ASM8) && defined(HK_FC_REQUANT_PATH_VCVTA)
/* hk_fc_requant_bounded of the accumulators A and B (core registers) into lanes LA and LB of
 * q0/q1, by the doubles SA and SB: one VMOV brings both into d4, then convert, scale and round. */
#define HK_FC_REQUANT_PAIR(A, B, LA, LB, SA, SB)                                              \
    "vmov s8, s9, %[" #A "], %[" #B "]\n\t"                                                   \
    "vcvt.f64.s32 d5, s9\n\t"                                                                 \
    "vcvt.f64.s32 d4, s8\n\t"                                                                 \
    "vmul.f64 d4, d4, " SA "\n\t"                                                             \
    "vmul.f64 d5, d5, " SB "\n\t"                                                             \
    "vcvta.s32.f64 " LA ", d4\n\t"                                                            \
    "vcvta.s32.f64 " LB ", d5\n\t"
#define HK_FC_REQUANT8_INPUTS                                                                 \
    [a0] "r"(acc[0]), [a1] "r"(acc[1]), [a2] "r"(acc[2]), [a3] "r"(acc[3]), [a4] "r"(acc[4]), \
        [a5] "r"(acc[5]), [a6] "r"(acc[6]), [a7] "r"(acc[7])
#endif

/* hk_fc_requant_bounded of eight accumulators, then fc_store8_mve. With GCC's assembler the eight
 * results land straight in the lanes of q0 and q1, two conversions per core-to-FPU move; one
 * scale for all (STEP 0) stays in a register, per-unit scales load two per VLDM. */
HK_INLINE void fc_output8_mve(const fc_s8_t *k, const uint32_t *acc, const double *s,
                              int8_t *out, int32x4_t lo, int32x4_t hi, const int32_t step)
{
#if defined(HK_FC_ASM8) && defined(HK_FC_REQUANT_PATH_VCVTA)
    int32x4_t r0, r1;
    if (step == 0) {
        __asm__(HK_FC_REQUANT_PAIR(a0, a1, "s0", "s1", "%P[s]", "%P[s]")
                HK_FC_REQUANT_PAIR(a2, a3, "s2", "s3", "%P[s]", "%P[s]")
                HK_FC_REQUANT_PAIR(a4, a5, "s4", "s5", "%P[s]", "%P[s]")
                HK_FC_REQUANT_PAIR(a6, a7, "s6", "s7", "%P[s]", "%P[s]")
                "vmov %q[r0], q0\n\t"
                "vmov %q[r1], q1"
                : [r0] "=w"(r0), [r1] "=w"(r1)
                : HK_FC_REQUANT8_INPUTS, [s] "w"(s[0])
                : "d0", "d1", "d2", "d3", "d4", "d5");
    } else {
        const double *sp = s;
        __asm__("vldmia %[sp]!, {d6-d7}\n\t"
                HK_FC_REQUANT_PAIR(a0, a1, "s0", "s1", "d6", "d7")
                "vldmia %[sp]!, {d6-d7}\n\t"
                HK_FC_REQUANT_PAIR(a2, a3, "s2", "s3", "d6", "d7")
                "vldmia %[sp]!, {d6-d7}\n\t"
                HK_FC_REQUANT_PAIR(a4, a5, "s4", "s5", "d6", "d7")
                "vldmia %[sp]!, {d6-d7}\n\t"
                HK_FC_REQUANT_PAIR(a6, a7, "s6", "s7", "d6", "d7")
                "vmov %q[r0], q0\n\t"
                "vmov %q[r1], q1"
                : [r0] "=w"(r0), [r1] "=w"(r1), [sp] "+r"(sp)
                : HK_FC_REQUANT8_INPUTS, "m"(*(const double(*)[8])s)
                : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7");
    }
    fc_store8_mve(k, r0, r1, out, lo, hi);
#else
    const int32x4_t r0 = fc_requant4(acc, s[0], s[step], s[2 * step], s[3 * step]);
    const int32x4_t r1 = fc_requant4(acc + 4, s[4 * step], s[5 * step], s[6 * step], s[7 * step]);
    fc_store8_mve(k, r0, r1, out, lo, hi);
#endif
}

#if defined(HK_FC_ASM8) && defined(HK_FC_REQUANT_PATH_VCVTA)
#undef HK_FC_REQUANT_PAIR
#undef HK_FC_REQUANT8_INPUTS
#endif

/* The integer requantization of eight accumulators (requant_multiplier, one per unit), then
 * fc_store8_mve: two core registers per VMOV into the lanes, then VQSHL, VQRDMULH and VRSHL on
 * four lanes at once. */
HK_INLINE void fc_output8_int_mve(const fc_s8_t *k, const uint32_t *acc, const int32_t *mult,
                                  int8_t *out, int32x4_t lo, int32x4_t hi)
{
    int32x4_t v0, v1;
#if defined(__GNUC__)
    /* VMOV Qd[2], Qd[0], Rt, Rt2 puts Rt in lane 0 and Rt2 in lane 2. */
    __asm__("vmov %q[v][2], %q[v][0], %[a0], %[a2]\n\t"
            "vmov %q[v][3], %q[v][1], %[a1], %[a3]"
            : [v] "=w"(v0)
            : [a0] "r"(acc[0]), [a1] "r"(acc[1]), [a2] "r"(acc[2]), [a3] "r"(acc[3]));
    __asm__("vmov %q[v][2], %q[v][0], %[a0], %[a2]\n\t"
            "vmov %q[v][3], %q[v][1], %[a1], %[a3]"
            : [v] "=w"(v1)
            : [a0] "r"(acc[4]), [a1] "r"(acc[5]), [a2] "r"(acc[6]), [a3] "r"(acc[7]));
#else
    v0 = vld1q_s32((const int32_t *)acc);
    v1 = vld1q_s32((const int32_t *)acc + 4);
#endif
    v0 = vqshlq_r_s32(v0, k->left);
    v1 = vqshlq_r_s32(v1, k->left);
    v0 = vqrdmulhq_s32(v0, vld1q_s32(mult));
    v1 = vqrdmulhq_s32(v1, vld1q_s32(mult + 4));
    v0 = vrshlq_n_s32(v0, -k->right);
    v1 = vrshlq_n_s32(v1, -k->right);
    fc_store8_mve(k, v0, v1, out, lo, hi);
}

#if defined(HK_FC_ASM)
/*
 * Every pair of packed groups of a layer without a filter offset in one assembly loop: the bias
 * pairs load by LDRD, the eight dot products run as in hk_fc_dot8_packed_s8, the eight results
 * requantize together (four lanes at a time with the integer form, or through the double FPU),
 * then the offset, clamp and stores. The loop state lives in fc_blocks8_t (one register points
 * at it, every other one holds accumulators, pointers or counters), so nothing is spilled by
 * the compiler; the block saves and restores r4-r11 itself (r7 included, the frame pointer at
 * -O0), so it builds at every optimization level.
 */
typedef struct {
    const int8_t *x;      /* the input row */
    const int8_t *w;      /* the next pair of groups */
    const int32_t *c;     /* folded_bias of the next pair */
    const void *m;        /* requant_multiplier (or per-unit scales) of the next pair */
    int8_t *out;          /* r7 in the loop */
    int32_t blocks;       /* pairs of groups */
    int32_t runs;         /* 64-step runs (whole-run loops) or 16-step chunks of the depth */
    int32_t group_size;   /* bytes of one packed group of four units */
    int32_t left;         /* the left shift of the integer form */
    int32_t neg_right;    /* q7 in the loop, in every lane */
    int32_t offset;       /* q6, in every int16 lane */
    int32_t tail;         /* depth % 16 */
    int32_t lo;           /* q4, act_min within int8, in every int16 lane */
    int32_t hi;           /* q5, act_max */
    int8_t *end;          /* set by the loop: out + 8 * blocks, where r7 stops */
} fc_blocks8_t;

/* fc_blocks8_t's member as the asm operand %[member], an immediate byte offset. */
#define FC_FIELD(member) [member] "i"(offsetof(fc_blocks8_t, member))


/* The weights of one 16-step chunk (w0 = r3, w1 = r5) against x in q0, accumulating eight
 * units into the even registers r0..lr. */
#define HK_FC_BLOCKS8_WEIGHTS                                                                 \
    "vldrb.8 q1, [r3], #16\n\t"                                                               \
    "vldrb.8 q2, [r3], #16\n\t"                                                               \
    "vmladava.s8 r0, q0, q1\n\t"                                                              \
    "vldrb.8 q1, [r3], #16\n\t"                                                               \
    "vmladava.s8 r2, q0, q2\n\t"                                                              \
    "vldrb.8 q2, [r3], #16\n\t"                                                               \
    "vmladava.s8 r4, q0, q1\n\t"                                                              \
    "vldrb.8 q1, [r5], #16\n\t"                                                               \
    "vmladava.s8 r6, q0, q2\n\t"                                                              \
    "vldrb.8 q2, [r5], #16\n\t"                                                               \
    "vmladava.s8 r8, q0, q1\n\t"                                                              \
    "vldrb.8 q1, [r5], #16\n\t"                                                               \
    "vmladava.s8 r10, q0, q2\n\t"                                                             \
    "vldrb.8 q2, [r5], #16\n\t"                                                               \
    "vmladava.s8 r12, q0, q1\n\t"                                                             \
    "vmladava.s8 lr, q0, q2\n\t"
#define HK_FC_BLOCKS8_CHUNK "vldrb.8 q0, [r1], #16\n\t" HK_FC_BLOCKS8_WEIGHTS

/* Per pair of groups: the bias pairs, w1 = w0 + group size, x from the start. */
#define HK_FC_BLOCKS8_HEAD                                                                    \
    "push {r4-r11}\n\t"                                                                       \
    "vpush {d8-d15}\n\t"                                                                      \
    "mov r11, %[st]\n\t"                                                                      \
    "ldr r1, [r11, %[lo]]\n\t"                                                                  \
    "vdup.16 q4, r1\n\t"                                                                      \
    "ldr r1, [r11, %[hi]]\n\t"                                                                  \
    "vdup.16 q5, r1\n\t"                                                                      \
    "ldr r1, [r11, %[offset]]\n\t"                                                                  \
    "vdup.16 q6, r1\n\t"                                                                      \
    "ldr r1, [r11, %[neg_right]]\n\t"                                                                  \
    "vdup.32 q7, r1\n\t"                                                                      \
    "ldr r3, [r11, %[w]]\n\t"                                                                   \
    "ldr r7, [r11, %[out]]\n\t"                                                                  \
    "ldr r1, [r11, %[blocks]]\n\t"                                                                  \
    "add r1, r7, r1, lsl #3\n\t"                                                              \
    "str r1, [r11, %[end]]\n"                                                                    \
    "2:\n\t"                                                                                  \
    "ldr r1, [r11, %[c]]\n\t"                                                                   \
    "ldrd r0, r2, [r1], #8\n\t"                                                               \
    "ldrd r4, r6, [r1], #8\n\t"                                                               \
    "ldrd r8, r10, [r1], #8\n\t"                                                              \
    "ldrd r12, lr, [r1], #8\n\t"                                                              \
    "str r1, [r11, %[c]]\n\t"                                                                   \
    "ldr r9, [r11, %[group_size]]\n\t"                                                                  \
    "add r5, r3, r9\n\t"                                                                      \
    "ldr r1, [r11, %[x]]\n\t"

/* The dot products of a depth of whole 64-step runs: four chunks per pass. */
#define HK_FC_BLOCKS8_DOT_RUNS                                                                \
    "ldr r9, [r11, %[runs]]\n"                                                                    \
    "1:\n\t"                                                                                  \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    "subs r9, r9, #1\n\t"                                                                     \
    "bne 1b\n\t"                                                                              \
    "mov r3, r5\n\t"

/* A depth of whole 128-step runs: eight chunks per pass, half the loop's overhead. */
#define HK_FC_BLOCKS8_DOT_RUNS2                                                               \
    "ldr r9, [r11, %[runs]]\n"                                                                    \
    "1:\n\t"                                                                                  \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    "subs r9, r9, #1\n\t"                                                                     \
    "bne 1b\n\t"                                                                              \
    "mov r3, r5\n\t"

/* Any depth: whole chunks one per pass, then the last partial chunk with x predicated (its
 * lanes past the depth read as 0; the weights are zero-padded). */
#define HK_FC_BLOCKS8_DOT_ANY                                                                 \
    "ldr r9, [r11, %[runs]]\n\t"                                                                  \
    "cmp r9, #0\n\t"                                                                          \
    "beq 3f\n"                                                                                \
    "1:\n\t"                                                                                  \
    HK_FC_BLOCKS8_CHUNK                                                                       \
    "subs r9, r9, #1\n\t"                                                                     \
    "bne 1b\n"                                                                                \
    "3:\n\t"                                                                                  \
    "ldr r9, [r11, %[tail]]\n\t"                                                                  \
    "cmp r9, #0\n\t"                                                                          \
    "beq 4f\n\t"                                                                              \
    "vctp.8 r9\n\t"                                                                           \
    "vpst\n\t"                                                                                \
    "vldrbt.8 q0, [r1]\n\t"                                                                   \
    HK_FC_BLOCKS8_WEIGHTS                                                                     \
    "4:\n\t"                                                                                  \
    "mov r3, r5\n\t"

/* The integer requantization (requant_multiplier at fc_blocks8_t.m): the even units 0, 2, 4, 6
 * into lanes 0-3 of q0 and the odd ones into q1 (VMOV Qd[2], Qd[0], Rt, Rt2 puts Rt in lane 0),
 * so that the narrowing of HK_FC_BLOCKS8_TAIL interleaves them back in order; VLD20/VLD21
 * deinterleave the multipliers the same way. Then VQSHL, VQRDMULH and VRSHL (by q7). */
#define HK_FC_BLOCKS8_INTEGER                                                                 \
    "vmov q0[2], q0[0], r0, r8\n\t"                                                           \
    "vmov q0[3], q0[1], r4, r12\n\t"                                                          \
    "vmov q1[2], q1[0], r2, r10\n\t"                                                          \
    "vmov q1[3], q1[1], r6, lr\n\t"                                                           \
    "ldr r1, [r11, %[left]]\n\t"                                                                  \
    "vqshl.s32 q0, r1\n\t"                                                                    \
    "vqshl.s32 q1, r1\n\t"                                                                    \
    "ldr r9, [r11, %[m]]\n\t"                                                                  \
    "vld20.32 {q2, q3}, [r9]\n\t"                                                             \
    "vld21.32 {q2, q3}, [r9]!\n\t"                                                            \
    "str r9, [r11, %[m]]\n\t"                                                                  \
    "vqrdmulh.s32 q0, q0, q2\n\t"                                                             \
    "vqrdmulh.s32 q1, q1, q3\n\t"                                                             \
    "vrshl.s32 q0, q0, q7\n\t"                                                                \
    "vrshl.s32 q1, q1, q7\n\t"

/* Two accumulators (core registers) through hk_fc_requant_bounded into lanes LA and LB of
 * q0/q1, by the next two per-unit scales (VLDM from r9). */
#define HK_FC_BLOCKS8_DOUBLE_PAIR(A, B, LA, LB)                                               \
    "vldmia r9!, {d6-d7}\n\t"                                                                 \
    "vmov s8, s9, " A ", " B "\n\t"                                                           \
    "vcvt.f64.s32 d5, s9\n\t"                                                                 \
    "vcvt.f64.s32 d4, s8\n\t"                                                                 \
    "vmul.f64 d4, d4, d6\n\t"                                                                 \
    "vmul.f64 d5, d5, d7\n\t"                                                                 \
    "vcvta.s32.f64 " LA ", d4\n\t"                                                            \
    "vcvta.s32.f64 " LB ", d5\n\t"

/* The double requantization (per-unit scales at fc_blocks8_t.m), for layers where the converter
 * found no integer form: even units into q0 (s0-s3), odd ones into q1 (s4-s7). Its results may
 * saturate at int32, so the output offset is added here, modulo 2^32 as in hk_fc_requant's
 * callers, not with the int16 saturation of HK_FC_BLOCKS8_OFFSET16. */
#define HK_FC_BLOCKS8_DOUBLE                                                                  \
    "ldr r9, [r11, %[m]]\n\t"                                                                  \
    HK_FC_BLOCKS8_DOUBLE_PAIR("r0", "r2", "s0", "s4")                                         \
    HK_FC_BLOCKS8_DOUBLE_PAIR("r4", "r6", "s1", "s5")                                         \
    HK_FC_BLOCKS8_DOUBLE_PAIR("r8", "r10", "s2", "s6")                                        \
    HK_FC_BLOCKS8_DOUBLE_PAIR("r12", "lr", "s3", "s7")                                        \
    "str r9, [r11, %[m]]\n\t"                                                                  \
    "ldr r1, [r11, %[offset]]\n\t"                                                                  \
    "vadd.i32 q0, q0, r1\n\t"                                                                 \
    "vadd.i32 q1, q1, r1\n\t"

/* The integer form's output offset (q6), added after the narrowing to int16 with saturation:
 * its results lie within 2^30, so neither this nor the narrowing changes a clamped byte. */
#define HK_FC_BLOCKS8_OFFSET16 "vqadd.s16 q0, q0, q6\n\t"

/* The eight results (even units in q0, odd in q1) narrowed with saturation into the int16
 * lanes of q0 in unit order, then the output OFFSET (integer form), the clamp (q4, q5: within
 * int8, so the saturation to int16 before it changes no result) and one narrowing store; then
 * the next pair of groups. */
#define HK_FC_BLOCKS8_TAIL(OFFSET)                                                            \
    "vqmovnb.s32 q0, q0\n\t"                                                                  \
    "vqmovnt.s32 q0, q1\n\t"                                                                  \
    OFFSET                                                                                    \
    "vmax.s16 q0, q0, q4\n\t"                                                                 \
    "vmin.s16 q0, q0, q5\n\t"                                                                 \
    "vstrb.16 q0, [r7], #8\n\t"                                                               \
    "ldr r1, [r11, %[end]]\n\t"                                                                  \
    "cmp r7, r1\n\t"                                                                          \
    "bne 2b\n\t"                                                                              \
    "str r7, [r11, %[out]]\n\t"                                                                  \
    "str r3, [r11, %[w]]\n\t"                                                                   \
    "vpop {d8-d15}\n\t"                                                                       \
    "pop {r4-r11}"

#define HK_FC_BLOCKS8_FUNCTION(NAME, DOT, REQUANT, OFF)                                       \
    static void NAME(fc_blocks8_t *st)                                                        \
    {                                                                                         \
        __asm__ volatile(HK_FC_BLOCKS8_HEAD DOT REQUANT HK_FC_BLOCKS8_TAIL(OFF)               \
                         :                                                                    \
                         : [st] "r"(st), FC_FIELD(x), FC_FIELD(w), FC_FIELD(c), FC_FIELD(m),  \
                           FC_FIELD(out), FC_FIELD(blocks), FC_FIELD(runs),                   \
                           FC_FIELD(group_size), FC_FIELD(left), FC_FIELD(neg_right),         \
                           FC_FIELD(offset), FC_FIELD(tail), FC_FIELD(lo), FC_FIELD(hi),      \
                           FC_FIELD(end)                                                      \
                         : "r0", "r1", "r2", "r3", "r12", "lr", "d0", "d1", "d2", "d3", "d4", \
                           "d5", "d6", "d7", "cc", "memory");                                 \
    }

HK_FC_BLOCKS8_FUNCTION(hk_fc_blocks8_s8, HK_FC_BLOCKS8_DOT_RUNS, HK_FC_BLOCKS8_INTEGER,
                       HK_FC_BLOCKS8_OFFSET16)
HK_FC_BLOCKS8_FUNCTION(hk_fc_blocks8_any_s8, HK_FC_BLOCKS8_DOT_ANY, HK_FC_BLOCKS8_INTEGER,
                       HK_FC_BLOCKS8_OFFSET16)
HK_FC_BLOCKS8_FUNCTION(hk_fc_blocks8_runs2_s8, HK_FC_BLOCKS8_DOT_RUNS2, HK_FC_BLOCKS8_INTEGER,
                       HK_FC_BLOCKS8_OFFSET16)
#if defined(HK_FC_REQUANT_PATH_VCVTA)
HK_FC_BLOCKS8_FUNCTION(hk_fc_blocks8_double_s8, HK_FC_BLOCKS8_DOT_RUNS, HK_FC_BLOCKS8_DOUBLE, "")
HK_FC_BLOCKS8_FUNCTION(hk_fc_blocks8_any_double_s8, HK_FC_BLOCKS8_DOT_ANY, HK_FC_BLOCKS8_DOUBLE,
                       "")
HK_FC_BLOCKS8_FUNCTION(hk_fc_blocks8_runs2_double_s8, HK_FC_BLOCKS8_DOT_RUNS2,
                       HK_FC_BLOCKS8_DOUBLE, "")
#endif

#undef HK_FC_BLOCKS8_FUNCTION
#undef FC_FIELD
#undef HK_FC_BLOCKS8_WEIGHTS
#undef HK_FC_BLOCKS8_CHUNK
#undef HK_FC_BLOCKS8_HEAD
#undef HK_FC_BLOCKS8_DOT_RUNS
#undef HK_FC_BLOCKS8_DOT_ANY
#undef HK_FC_BLOCKS8_DOT_RUNS2
#undef HK_FC_BLOCKS8_INTEGER
#undef HK_FC_BLOCKS8_DOUBLE_PAIR
#undef HK_FC_BLOCKS8_DOUBLE
#undef HK_FC_BLOCKS8_TAIL
#undef HK_FC_BLOCKS8_OFFSET16
#endif

/* STEP is the scale index step (0 or 1), a constant in each expansion so that the four scales
 * load with immediate offsets; the offset, clamp and narrowing store are vector operations. */
HK_INLINE void fc_groups_mve(const fc_s8_t *k, const int8_t *x, uint32_t row, int8_t *out,
                             const int32_t step)
{
    const size_t group_size = hk_fc_packed_group_size(k->depth);
    const int8_t *w = k->filter;
    const int32_t *c = k->folded;
    const double *s = k->scale;
    const int32_t *m = k->mult;
    const int32x4_t lo = vdupq_n_s32(k->act_min);
    const int32x4_t hi = vdupq_n_s32(k->act_max);
    int32_t g = k->units / HK_FC_PACK_ROWS;
#if defined(HK_FC_ASM)
    /* Whole 64-step runs, no filter offset and the integer requantization: every pair of
     * groups in one assembly loop (hk_fc_blocks8_s8). */
    if (m != NULL && row == 0u && k->depth > 0 && (k->depth & 63) == 0 && g >= 2) {
        fc_blocks8_t st = {x,        w,       c,         m,         out,       g / 2,
                           k->depth >> 6, (int32_t)group_size, k->left, -k->right,
                           k->offset, 0,  k->act_min,         k->act_max,
                           NULL};
        hk_fc_blocks8_s8(&st);
        const int32_t done = g / 2 * 8;
        w = st.w;
        c = st.c;
        m += done;
        s += done * step;
        out = st.out;
        g -= g / 2 * 2;
    }
#endif
    /* Pairs of groups first: eight units per pass of x (hk_fc_dot8_packed_s8). */
    for (; g >= 2; g -= 2) {
        uint32_t acc[8] = {(uint32_t)c[0] + row, (uint32_t)c[1] + row, (uint32_t)c[2] + row,
                           (uint32_t)c[3] + row, (uint32_t)c[4] + row, (uint32_t)c[5] + row,
                           (uint32_t)c[6] + row, (uint32_t)c[7] + row};
        hk_fc_dot8_packed_s8(x, w, k->depth, acc);
        if (m != NULL) {
            fc_output8_int_mve(k, acc, m, out, lo, hi);
            m += 8;
        } else {
            fc_output8_mve(k, acc, s, out, lo, hi, step);
        }
        w += 2 * group_size;
        c += 8;
        s += 8 * step;
        out += 8;
    }
    for (; g > 0; --g) {
        FC_GROUP_ACC(acc, c, row);
        hk_fc_dot4_packed_s8(x, w, k->depth, acc);
        const int32x4_t r = fc_requant4(acc, s[0], s[step], s[2 * step], s[3 * step]);
        vstrbq_s32(out, vminq_s32(vmaxq_s32(vaddq_n_s32(r, k->offset), lo), hi));
        w += group_size;
        c += 4;
        s += 4 * step;
        out += 4;
    }
}

static void fc_groups_s8(const fc_s8_t *k, const int8_t *x, uint32_t row, int8_t *out)
{
    if (k->per_channel) {
        fc_groups_mve(k, x, row, out, 1);
    } else {
        fc_groups_mve(k, x, row, out, 0);
    }
}

#if defined(HK_FC_ASM)
/* The layers the hk_fc_blocks8 loops cover whole (packed weights, no filter offset, units in
 * pairs of groups; the double form needs per-unit scales), straight from the params: none of
 * the set-up of the general loops, which would cost as much as a block. */
FC_NOINLINE static bool fc_blocks_only_s8(const hk_fully_connected_params_t *p, const int8_t *input,
                              const int8_t *filter, int8_t *output)
{
    const int32_t depth = p->input_features;
    const int32_t units = p->output_features;
    if (!p->packed_filter || p->filter_offset != 0 || depth <= 0 || units <= 0 ||
        (units & 7) != 0) {
        return false;
    }
    const bool runs = (depth & 63) == 0;
    const bool runs2 = (depth & 127) == 0;
    const bool integer = p->requant_multiplier != NULL;
#if defined(HK_FC_REQUANT_PATH_VCVTA)
    if (!integer && !p->per_channel) {
        return false;
    }
#else
    if (!integer) {
        return false;
    }
#endif
    fc_blocks8_t st = {input,
                       filter,
                       p->folded_bias,
                       integer ? (const void *)p->requant_multiplier
                               : (const void *)p->output_scale,
                       output,
                       units / 8,
                       runs2 ? depth >> 7 : (runs ? depth >> 6 : depth >> 4),
                       (int32_t)hk_fc_packed_group_size(depth),
                       p->requant_left,
                       -p->requant_right,
                       p->output_offset,
                       depth & 15,
                       hk_max_i32(p->act_min, -128),
                       hk_min_i32(p->act_max, 127),
                       NULL};
    for (int32_t b = 0; b < p->batches; ++b) {
        st.x = input + (size_t)b * (size_t)depth;
        st.w = filter;
        st.c = p->folded_bias;
        st.m = integer ? (const void *)p->requant_multiplier : (const void *)p->output_scale;
        st.out = output + (size_t)b * (size_t)units;
#if defined(HK_FC_REQUANT_PATH_VCVTA)
        if (!integer) {
            if (runs2) {
                hk_fc_blocks8_runs2_double_s8(&st);
            } else if (runs) {
                hk_fc_blocks8_double_s8(&st);
            } else {
                hk_fc_blocks8_any_double_s8(&st);
            }
            continue;
        }
#endif
        if (runs2) {
            hk_fc_blocks8_runs2_s8(&st);
        } else if (runs) {
            hk_fc_blocks8_s8(&st);
        } else {
            hk_fc_blocks8_any_s8(&st);
        }
    }
    return true;
}
#endif

FC_NOINLINE static void fc_general_s8(const hk_fully_connected_params_t *p, const int8_t *input,
                                      const int8_t *filter, const int32_t *bias, int8_t *output)
{
    fc_general_walk(p, input, filter, bias, output, fc_groups_s8);
}

int32_t hk_fully_connected_s8_fast(const hk_fully_connected_params_t *params, const int8_t *input,
                                   const int8_t *filter, const int32_t *bias, int8_t *output)
{
#if defined(HK_FC_ASM)
    if (fc_blocks_only_s8(params, input, filter, output)) {
        return HK_STATUS_OK;
    }
#endif
    fc_general_s8(params, input, filter, bias, output);
    return HK_STATUS_OK;
}

#endif /* HK_HAVE_MVE */
