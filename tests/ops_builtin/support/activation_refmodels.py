"""Numpy models of the LiteRT reference arithmetic behind the activation and softmax kernels.

Written from the reference semantics (gemmlowp fixed point, LiteRT reference_ops) rather than
from the C kernels, so the kernel tests compare two independent implementations. All integer
arithmetic runs on int64 arrays; ``wrap32`` reproduces int32 two's-complement wrap-around where
the reference relies on it.
"""

from __future__ import annotations

import numpy as np

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1


def wrap32(x):
    x = np.asarray(x, dtype=np.int64)
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def trunc_div(x, d: int):
    """C integer division (rounds toward zero)."""
    x = np.asarray(x, dtype=np.int64)
    q = np.abs(x) // d
    return np.where(x < 0, -q, q)


def sat_rdhm(a, b):
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    r = trunc_div(ab + nudge, 1 << 31)
    return np.where((a == b) & (a == I32_MIN), I32_MAX, r)


def rdbpot(x, exponent):
    x = np.asarray(x, dtype=np.int64)
    exponent = np.asarray(exponent, dtype=np.int64)
    mask = (np.int64(1) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (remainder > threshold)


def mbqm(x, multiplier, shift):
    """MultiplyByQuantizedMultiplier (double rounding)."""
    shift = np.asarray(shift, dtype=np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    shifted = wrap32(np.asarray(x, dtype=np.int64) << left)
    return rdbpot(sat_rdhm(shifted, multiplier), right)


def mul_pot(x, exponent: int):
    """gemmlowp SaturatingRoundingMultiplyByPOT."""
    x = np.asarray(x, dtype=np.int64)
    if exponent > 0:
        threshold = (1 << (31 - exponent)) - 1
        return np.where(x > threshold, I32_MAX, np.where(x < -threshold, I32_MIN, x << exponent))
    return rdbpot(x, -exponent)


def exp_on_interval(a):
    x = wrap32(a + (1 << 28))
    x2 = sat_rdhm(x, x)
    x3 = sat_rdhm(x2, x)
    x4 = sat_rdhm(x2, x2)
    x4_over_4 = mul_pot(x4, -2)
    inner = mul_pot(wrap32(sat_rdhm(wrap32(x4_over_4 + x3), 715827883) + x2), -1)
    c = 1895147668
    return wrap32(c + sat_rdhm(c, wrap32(x + inner)))


EXP_BARREL = {-2: 1672461947, -1: 1302514674, 0: 790015084, 1: 290630308, 2: 39332535, 3: 720401, 4: 242}


def exp_on_negative_values(a, integer_bits: int):
    a = np.asarray(a, dtype=np.int64)
    frac = 31 - integer_bits
    quarter = 1 << (frac - 2)
    a_mod = wrap32((a & (quarter - 1)) - quarter)
    result = exp_on_interval(mul_pot(a_mod, integer_bits))
    remainder = wrap32(a_mod - a)
    for k, mult in EXP_BARREL.items():
        if integer_bits > k:
            result = np.where(remainder & (1 << (frac + k)), sat_rdhm(result, mult), result)
    if integer_bits > 5:
        result = np.where(a < -(1 << (36 - integer_bits)), 0, result)
    return np.where(a == 0, I32_MAX, result)


def one_over_one_plus_x(a):
    a = np.asarray(a, dtype=np.int64)
    s = a + I32_MAX
    half = trunc_div(s + np.where(s >= 0, 1, -1), 2)
    x = wrap32(1515870810 + sat_rdhm(half, -1010580540))
    for _ in range(3):
        one_minus = wrap32((1 << 29) - sat_rdhm(half, x))
        x = wrap32(x + mul_pot(sat_rdhm(x, one_minus), 2))
    return mul_pot(x, 1)


def clz32(x: int) -> int:
    return 32 - int(x & 0xFFFFFFFF).bit_length()


# --- elementwise activations ---------------------------------------------------------------


def relu_q(x, p, lo, hi):
    v = p.output_zero_point + mbqm(
        np.asarray(x, np.int64) - p.input_zero_point, p.output_multiplier, p.output_shift
    )
    return np.clip(v, lo, hi)


def leaky_relu_q(x, p, qmin, qmax):
    xv = np.asarray(x, np.int64) - p.input_zero_point
    pos = mbqm(xv, p.identity_multiplier, p.identity_shift)
    scaled_alpha = mbqm(xv, abs(p.alpha_multiplier), p.alpha_shift)
    neg = -scaled_alpha if p.alpha_multiplier < 0 else scaled_alpha
    return np.clip(p.output_zero_point + np.where(xv >= 0, pos, neg), qmin, qmax)


def _sat_rdhm16(a, b):
    ab = np.asarray(a, np.int64) * np.asarray(b, np.int64)
    nudge = np.where(ab >= 0, 1 << 14, 1 - (1 << 14))
    r = trunc_div(ab + nudge, 1 << 15)
    return np.where((np.asarray(a) == b) & (np.asarray(a) == -32768), 32767, r)


def _sat_dhm16(a, b):
    r = trunc_div(np.asarray(a, np.int64) * np.asarray(b, np.int64), 1 << 15)
    return np.where((np.asarray(a) == b) & (np.asarray(a) == -32768), 32767, r)


def _to_i16(x):
    x = np.asarray(x, np.int64)
    return ((x + 32768) & 0xFFFF) - 32768


def _rdbpot16(x, exponent: int):
    """gemmlowp RoundingDivideByPOT<int16_t>: the mask is truncated to 16 bits."""
    x = np.asarray(x, np.int64)
    mask = int(_to_i16((1 << exponent) - 1))
    remainder = _to_i16(x & mask)
    threshold = _to_i16((mask >> 1) + (x < 0))
    return _to_i16((x >> min(exponent, 31)) + (remainder > threshold))


def _sat_left_shift16(x, amount: int):
    return np.clip(np.asarray(x, np.int64) * (1 << amount), -32768, 32767)


def hard_swish_q(x, p):
    centered = np.asarray(x, np.int64) - p.input_zero_point
    hires = centered * 128
    preshift_out = _sat_rdhm16(hires, p.output_multiplier)
    reluish = hires
    if p.reluish_exponent > 0:
        reluish = _sat_left_shift16(reluish, p.reluish_exponent - 1)
    reluish = _sat_rdhm16(reluish, p.reluish_multiplier)
    if p.reluish_exponent > 0:
        reluish = _sat_left_shift16(reluish, 1)
    if p.reluish_exponent < 0:
        reluish = _rdbpot16(reluish, -p.reluish_exponent)
    reluish = (reluish + (1 << 15)) >> 1
    pre = _sat_dhm16(reluish, preshift_out)
    out = _rdbpot16(pre, -p.output_exponent) + p.output_zero_point
    return np.clip(out, -128, 127)


def prelu_q(x, alpha, p):
    """Elementwise PRELU on x and alpha already broadcast to the same shape."""
    xv = np.asarray(x, np.int64) - p.input_zero_point
    av = np.asarray(alpha, np.int64) - p.alpha_zero_point
    pos = mbqm(xv, p.identity_multiplier, p.identity_shift)
    neg = mbqm(xv * av, p.alpha_multiplier, p.alpha_shift)
    return np.clip(np.where(xv >= 0, pos, neg) + p.output_zero_point, -128, 127)


def _sigmoid_input(x, params):
    mult, shift = params.input_multiplier, params.input_left_shift
    if mult == 0:
        mult, shift = 3 << shift, 0
    rnd = (1 << (shift - 1)) if shift > 0 else 0
    return wrap32(np.asarray(x, np.int64) * mult + rnd) >> shift


def logistic_s16(x, params, table):
    v = _sigmoid_input(x, params)
    mag = np.abs(v)
    idx = mag >> 9
    safe = np.minimum(idx, 254)
    lo, hi = table[safe], table[safe + 1]
    res = np.where(idx >= 255, 0x7FFF << 10, (lo << 9) + (mag & 0x1FF) * (hi - lo))
    res = np.where(v >= 0, res + 512, (1 << 25) - res + 511)
    return _to_i16(res >> 10)


def tanh_s16(x, params, table):
    v = _sigmoid_input(x, params)
    mag = np.abs(v)
    idx = mag >> 8
    safe = np.minimum(idx, 254)
    lo, hi = table[safe], table[safe + 1]
    res = np.where(idx >= 255, 0xFFFF << 8, (lo << 8) + (mag & 0xFF) * (hi - lo))
    res = np.where(v >= 0, res - (1 << 23) + (1 << 7), -res + (1 << 23) + (1 << 7) - 1)
    return _to_i16(res >> 8)


# --- softmax -------------------------------------------------------------------------------


def softmax_s8(x2d, p, output_bits: int):
    """reference_ops::Softmax<int8_t, OutputT> on rows of a 2-D int array."""
    out_min, out_max = -(1 << (output_bits - 1)), (1 << (output_bits - 1)) - 1
    rows = []
    for row in np.asarray(x2d, np.int64):
        diff = row - row.max()
        ok = diff >= p.diff_min
        scaled = sat_rdhm(wrap32(diff << p.input_left_shift), p.input_multiplier)
        e = exp_on_negative_values(scaled, 5)
        total = int(wrap32(np.sum(np.where(ok, mul_pot(e, -12), 0))))
        hpo = clz32(total)
        nbou = 12 - hpo
        shifted_scale = one_over_one_plus_x(wrap32(((total << hpo) & 0xFFFFFFFF) - (1 << 31)))
        exponent = nbou + 31 - output_bits
        unsat = rdbpot(sat_rdhm(shifted_scale, e), exponent)
        rows.append(np.where(ok, np.clip(unsat + out_min, out_min, out_max), out_min))
    return np.stack(rows)


def lut_lookup16(v, lut):
    v = np.asarray(v, np.int64)
    lut = np.asarray(lut, np.int64)
    index = 256 + (v >> 7)
    offset = v & 0x7F
    base = lut[index]
    slope = lut[index + 1] - base
    return _to_i16(base + ((slope * offset + 64) >> 7))


def softmax_s16(x2d, p, exp_lut, recip_lut):
    rows = []
    for row in np.asarray(x2d, np.int64):
        scaled = mbqm(row - row.max(), p.input_multiplier, p.input_shift)
        e = lut_lookup16(np.clip(scaled + 32767, -32768, 32767), exp_lut)
        total = int(e.sum())
        hpo = clz32(total)
        shifted = ((total << (hpo - 1)) + (1 << 13)) >> 14
        recip = int(lut_lookup16(np.clip(shifted - (1 << 15) - (1 << 16), -32768, 32767), recip_lut))
        rs = 31 - hpo
        rnd = 1 << (rs - 1)
        rows.append(np.clip((e * recip + rnd) >> rs, 0, 32767))
    return np.stack(rows)


def softmax_f32(x2d, beta: float):
    x = np.asarray(x2d, np.float32)
    e = np.exp((x - x.max(axis=-1, keepdims=True)) * np.float32(beta)).astype(np.float32)
    return (e / e.sum(axis=-1, keepdims=True, dtype=np.float32)).astype(np.float32)


SIGMOID_TABLE = np.array(
    [
        32768,
        33451,
        34133,
        34813,
        35493,
        36169,
        36843,
        37513,
        38180,
        38841,
        39498,
        40149,
        40794,
        41432,
        42064,
        42688,
        43304,
        43912,
        44511,
        45102,
        45683,
        46255,
        46817,
        47369,
        47911,
        48443,
        48964,
        49475,
        49975,
        50464,
        50942,
        51409,
        51865,
        52311,
        52745,
        53169,
        53581,
        53983,
        54374,
        54755,
        55125,
        55485,
        55834,
        56174,
        56503,
        56823,
        57133,
        57433,
        57724,
        58007,
        58280,
        58544,
        58800,
        59048,
        59288,
        59519,
        59743,
        59959,
        60168,
        60370,
        60565,
        60753,
        60935,
        61110,
        61279,
        61441,
        61599,
        61750,
        61896,
        62036,
        62172,
        62302,
        62428,
        62549,
        62666,
        62778,
        62886,
        62990,
        63090,
        63186,
        63279,
        63368,
        63454,
        63536,
        63615,
        63691,
        63765,
        63835,
        63903,
        63968,
        64030,
        64090,
        64148,
        64204,
        64257,
        64308,
        64357,
        64405,
        64450,
        64494,
        64536,
        64576,
        64614,
        64652,
        64687,
        64721,
        64754,
        64786,
        64816,
        64845,
        64873,
        64900,
        64926,
        64950,
        64974,
        64997,
        65019,
        65039,
        65060,
        65079,
        65097,
        65115,
        65132,
        65149,
        65164,
        65179,
        65194,
        65208,
        65221,
        65234,
        65246,
        65258,
        65269,
        65280,
        65291,
        65301,
        65310,
        65319,
        65328,
        65337,
        65345,
        65352,
        65360,
        65367,
        65374,
        65381,
        65387,
        65393,
        65399,
        65404,
        65410,
        65415,
        65420,
        65425,
        65429,
        65433,
        65438,
        65442,
        65445,
        65449,
        65453,
        65456,
        65459,
        65462,
        65465,
        65468,
        65471,
        65474,
        65476,
        65479,
        65481,
        65483,
        65485,
        65488,
        65489,
        65491,
        65493,
        65495,
        65497,
        65498,
        65500,
        65501,
        65503,
        65504,
        65505,
        65507,
        65508,
        65509,
        65510,
        65511,
        65512,
        65513,
        65514,
        65515,
        65516,
        65517,
        65517,
        65518,
        65519,
        65520,
        65520,
        65521,
        65522,
        65522,
        65523,
        65523,
        65524,
        65524,
        65525,
        65525,
        65526,
        65526,
        65526,
        65527,
        65527,
        65528,
        65528,
        65528,
        65529,
        65529,
        65529,
        65529,
        65530,
        65530,
        65530,
        65530,
        65531,
        65531,
        65531,
        65531,
        65531,
        65532,
        65532,
        65532,
        65532,
        65532,
        65532,
        65533,
        65533,
        65533,
        65533,
        65533,
        65533,
        65533,
        65533,
        65534,
        65534,
        65534,
        65534,
        65534,
        65534,
        65534,
        65534,
        65534,
        65534,
        65535,
    ],
    dtype=np.int64,
)
