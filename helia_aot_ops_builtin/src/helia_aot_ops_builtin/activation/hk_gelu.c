/*
 * helia-aot kernel library: GELU on float32 (see hk_gelu.h).
 *
 * The reference runs its Eigen expression in packets of HK_GELU_PACKET floats (SSE, no FMA) and
 * the last size % HK_GELU_PACKET elements one by one. The two paths agree for tanh, but the
 * scalar erfc takes exp(-x^2) from the C library's expf where the packet one uses Eigen's own
 * polynomial, so the kernels reproduce that split by element index.
 */
#include <math.h>

#include "hk_gelu.h"

#define HK_GELU_PACKET 4u

/* Clamps that let a NaN through, as the packet min/max the reference uses do. */
static float clamp_nan(float x, float lo, float hi)
{
    x = x < lo ? lo : x;
    return x > hi ? hi : x;
}

/* exp(x) for x <= 0 as Eigen's packet pexp_float: Cody-Waite reduction by ln 2 in two parts and
 * a degree-6 polynomial, each multiply-add rounded twice, results below -104 flushed to zero. */
static float packet_expf(float x)
{
    if (x < -104.0f) {
        return 0.0f;
    }
    const float m = floorf(x * 1.44269504088896341f + 0.5f);
    float r = m * -0.693359375f + x;
    r = m * 2.12194440e-4f + r;
    const float r2 = r * r;
    float even = r2 * 1.37449637986719608306884765625e-3f + 4.166965186595916748046875e-2f;
    const float odd = r2 * 8.36894474923610687255859375e-3f + 0.16666518151760101318359375f;
    even = r2 * even + 0.49999988079071044921875f;
    float y = r * odd + even;
    y = r2 * y + (r + 1.0f);
    return ldexpf(y, (int)m);
}

/* The exact rounding error of square = fl(x * x): by a fused multiply-add where the core has
 * one, else by Veltkamp's split of x into halves whose products are exact. */
static float square_error(float x, float square)
{
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA)
    return fmaf(x, x, -square);
#else
    const float scaled = 4097.0f * x;
    const float rho = x - scaled;
    const float hi = rho + scaled;
    const float lo = x - hi;
    float err = hi * hi - square;
    err = hi * lo + err;
    err = lo * hi + err;
    return lo * lo + err;
#endif
}

/* erfc(x): odd degree-11 polynomial for |x| <= 1, else exp(-x^2) / x times a [3/4] rational in
 * 1/x^2 (exp(-x^2) corrected by the square's rounding error); 2 - ... for negative x. */
static float eigen_erfcf(float x_in, int scalar)
{
    static const float s[6] = {
        5.61802298761904239654541015625e-04f, -4.91381669417023658752441406250e-03f,
        2.67075151205062866210937500000e-02f, -1.12800106406211853027343750000e-01f,
        3.76122951507568359375000000000e-01f, -1.12837910652160644531250000000e+00f,
    };
    static const float p[4] = {1.0208116471767425537109375e-01f, 4.2920666933059692382812500e-01f,
                               3.2379078865051269531250000e-01f, 5.3971976041793823242187500e-02f};
    static const float q[5] = {1.7251677811145782470703125e-02f, 3.9137163758277893066406250e-01f,
                               1.0000000000000000000000000e+00f, 6.2173241376876831054687500e-01f,
                               9.5662862062454223632812500e-02f};
    const float x = clamp_nan(x_in, -11.0f, 11.0f);
    const float x2 = x * x;
    if (!(x2 > 1.0f)) {
        float poly = s[0];
        for (int i = 1; i < 6; ++i) {
            poly = poly * x2 + s[i];
        }
        return x * poly + 1.0f;
    }
    const float e = scalar ? expf(-x2) : packet_expf(-x2);
    const float z = e - e * square_error(x, x2);
    const float inv = 1.0f / x2;
    float num = p[0];
    for (int i = 1; i < 4; ++i) {
        num = num * inv + p[i];
    }
    float den = q[0];
    for (int i = 1; i < 5; ++i) {
        den = den * inv + q[i];
    }
    return z * (num / (x * den)) + (x < 0.0f ? 2.0f : 0.0f);
}

/* tanh(x): odd [9/8] rational in x, the input clamped where it reaches exactly +-1. */
static float eigen_tanhf(float x_in)
{
    static const float a[4] = {1.394553628e-8f, 2.102733560e-5f, 3.520756727e-3f, 1.340216100e-1f};
    static const float b[5] = {8.015776984e-7f, 3.326951409e-4f, 2.597254514e-2f, 4.673548340e-1f, 1.0f};
    const float x = clamp_nan(x_in, -7.90738964080810547f, 7.90738964080810547f);
    const float x2 = x * x;
    float num = a[0];
    for (int i = 1; i < 4; ++i) {
        num = num * x2 + a[i];
    }
    float den = b[0];
    for (int i = 1; i < 5; ++i) {
        den = den * x2 + b[i];
    }
    return ((x2 * x) * num + x) / den;
}

/* Follows LiteRT reference_ops::Gelu (exact form): 0.5 x erfc(-x / sqrt(2)) with Eigen's float
 * erfc, packet arithmetic up to the last whole packet and the scalar path after it. */
int32_t hk_gelu_f32(const float *input, float *output, size_t size)
{
    const float minus_sqrt_half = -0.70710678118654752440f;
    const size_t packet_end = size - size % HK_GELU_PACKET;
    for (size_t i = 0; i < size; ++i) {
        const float x = input[i];
        output[i] = 0.5f * x * eigen_erfcf(x * minus_sqrt_half, i >= packet_end);
    }
    return HK_STATUS_OK;
}

/* Follows LiteRT reference_ops::Gelu (approximate form):
 * 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) with Eigen's float tanh. */
int32_t hk_gelu_tanh_f32(const float *input, float *output, size_t size)
{
    const float sqrt_two_over_pi = 0.79788456080286535588f;
    for (size_t i = 0; i < size; ++i) {
        const float x = input[i];
        output[i] = 0.5f * x * (1.0f + eigen_tanhf(sqrt_two_over_pi * (x + 0.044715f * (x * x * x))));
    }
    return HK_STATUS_OK;
}
