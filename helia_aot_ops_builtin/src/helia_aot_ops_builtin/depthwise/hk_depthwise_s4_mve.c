/*
 * helia-aot kernel library: the Helium block of hk_depthwise_s8_s4 (see hk_depthwise_s4.h).
 */
#include "hk_depthwise_s4.h"

#if HK_HAVE_MVE

/* Eight channels per tap: their inputs widened to halves and split into the even and odd
 * channels' words (VMOVLB / VMOVLT) with the input offset added, their four weight bytes
 * widened to words and split into the low (even channels) and high (odd channels) nibbles by
 * shifts; a multiply and an add each into the even and odd channels' sums, which are scattered
 * back in channel order at the end. */
void hk_depthwise_s4_block(const uint8_t *filter, const hk_depthwise_window_t *win, size_t oc,
                           int32_t *acc)
{
    const int32x4_t offset = vdupq_n_s32(win->in_offset);
    int32x4_t even = vdupq_n_s32(0), odd = vdupq_n_s32(0);
    for (int32_t fy = win->fy0; fy < win->fy1; ++fy) {
        const int32_t iy = win->iy0 + fy * win->dilation_height;
        for (int32_t fx = win->fx0; fx < win->fx1; ++fx) {
            const int32_t ix = win->ix0 + fx * win->dilation_width;
            const int8_t *x = win->image + ((size_t)iy * win->in_w + (size_t)ix) * win->in_c + oc;
            const size_t tap = ((size_t)fy * win->filter_w + (size_t)fx) * win->out_c + oc;
            const int16x8_t xs = vldrbq_s16(x);
            const int32x4_t bytes = vreinterpretq_s32_u32(vldrbq_u32(filter + (tap >> 1)));
            const int32x4_t w_even = vshrq_n_s32(vshlq_n_s32(bytes, 28), 28);
            const int32x4_t w_odd = vshrq_n_s32(vshlq_n_s32(bytes, 24), 28);
            even = vaddq_s32(even, vmulq_s32(w_even, vaddq_s32(vmovlbq_s16(xs), offset)));
            odd = vaddq_s32(odd, vmulq_s32(w_odd, vaddq_s32(vmovltq_s16(xs), offset)));
        }
    }
    const uint32x4_t lanes = vmulq_n_u32(vidupq_n_u32(0, 1), 2);
    vstrwq_scatter_shifted_offset_s32(acc, lanes, even);
    vstrwq_scatter_shifted_offset_s32(acc + 1, lanes, odd);
}

/* hk_depthwise_s4_block for the last `count` channels (2, 4 or 6) under tail predicates: the
 * inputs and weight bytes past them are not read, and only their sums are stored. */
void hk_depthwise_s4_tail(const uint8_t *filter, const hk_depthwise_window_t *win, size_t oc,
                          int32_t count, int32_t *acc)
{
    const mve_pred16_t inputs = vctp16q((uint32_t)count);
    const mve_pred16_t pairs = vctp32q((uint32_t)count >> 1);
    const int32x4_t offset = vdupq_n_s32(win->in_offset);
    int32x4_t even = vdupq_n_s32(0), odd = vdupq_n_s32(0);
    for (int32_t fy = win->fy0; fy < win->fy1; ++fy) {
        const int32_t iy = win->iy0 + fy * win->dilation_height;
        for (int32_t fx = win->fx0; fx < win->fx1; ++fx) {
            const int32_t ix = win->ix0 + fx * win->dilation_width;
            const int8_t *x = win->image + ((size_t)iy * win->in_w + (size_t)ix) * win->in_c + oc;
            const size_t tap = ((size_t)fy * win->filter_w + (size_t)fx) * win->out_c + oc;
            const int16x8_t xs = vldrbq_z_s16(x, inputs);
            const int32x4_t bytes = vreinterpretq_s32_u32(vldrbq_z_u32(filter + (tap >> 1), pairs));
            const int32x4_t w_even = vshrq_n_s32(vshlq_n_s32(bytes, 28), 28);
            const int32x4_t w_odd = vshrq_n_s32(vshlq_n_s32(bytes, 24), 28);
            even = vaddq_s32(even, vmulq_s32(w_even, vaddq_s32(vmovlbq_s16(xs), offset)));
            odd = vaddq_s32(odd, vmulq_s32(w_odd, vaddq_s32(vmovltq_s16(xs), offset)));
        }
    }
    const uint32x4_t lanes = vmulq_n_u32(vidupq_n_u32(0, 1), 2);
    vstrwq_scatter_shifted_offset_p_s32(acc, lanes, even, pairs);
    vstrwq_scatter_shifted_offset_p_s32(acc + 1, lanes, odd, pairs);
}

#endif /* HK_HAVE_MVE */
