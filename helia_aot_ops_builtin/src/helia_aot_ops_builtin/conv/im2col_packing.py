"""The filter layout of the int8 CONV_2D kernel for few input channels (``hk_conv_im2col``).

On Helium that kernel gathers an output pixel's receptive field into a column of
``round16(taps)`` bytes and multiplies it, one 16-byte vector at a time, by four filters at
once. Packing the filters here, at conversion, in exactly the order that loop reads them lets
it walk one pointer forward with no tail handling: per group of four filters, vector k of each
of the four filter rows in turn. Rows are zero padded to whole vectors and the filter count to a
multiple of four, so padded lanes and padded filters add nothing.
"""

from __future__ import annotations

import numpy as np

IM2COL_MAX_CHANNELS = 8
"""Input channels up to which a windowed convolution takes the im2col kernel: a window row of
few channels fills Helium's vectors badly when read in place (first layers: 1 or 3 channels)."""


def im2col_half(kernel_h: int, kernel_w: int, channels: int) -> bool:
    """Whether a receptive field fits half a vector (at most 8 taps): two pixels then share one
    vector's 16 lanes (A in 0..7, B in 8..15) against each filter row packed twice."""
    return kernel_h * kernel_w * channels <= 8


def im2col_column(kernel_h: int, kernel_w: int, channels: int) -> int:
    """Bytes of one gathered receptive field, rounded up to whole 16-byte vectors."""
    return (kernel_h * kernel_w * channels + 15) & ~15


def im2col_applies(kernel_h: int, kernel_w: int, filter_channels: int, channels: int) -> bool:
    """Whether the shape suits the im2col kernel: ungrouped over few channels (a window, or a
    1x1 filter whose pixels fit half a vector)."""
    return (
        filter_channels == channels
        and channels <= IM2COL_MAX_CHANNELS
        and (kernel_h * kernel_w > 1 or im2col_half(kernel_h, kernel_w, channels))
    )


def im2col_packed(weights: np.ndarray) -> np.ndarray:
    """OHWI int8 filters in the kernel's read order (see the module docstring), flattened; with
    half columns each row holds its taps twice, at bytes 0 and 8."""
    oc, kh, kw, c = weights.shape
    taps = kh * kw * c
    column = im2col_column(kh, kw, c)
    groups = -(-oc // 4)
    rows = np.zeros((groups * 4, column), np.int8)
    flat = np.asarray(weights, np.int8).reshape(oc, taps)
    rows[:oc, :taps] = flat
    if im2col_half(kh, kw, c):
        rows[:oc, 8 : 8 + taps] = flat
    order = rows.reshape(groups, 4, column // 16, 16).transpose(0, 2, 1, 3)
    return np.ascontiguousarray(order).reshape(-1)


def im2col_quant(folded_bias: np.ndarray, multipliers: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """Per group of four filters: their folded biases, Q31 multipliers and shifts (4 words each,
    zero padded), so the requantization walks one pointer with whole-vector loads."""
    channels = int(np.asarray(multipliers).size)
    groups = -(-channels // 4)
    table = np.zeros((groups, 3, 4), np.int32)
    for row, values in enumerate((folded_bias, multipliers, shifts)):
        flat = np.zeros(groups * 4, np.int32)
        flat[:channels] = np.asarray(values, np.int32).reshape(-1)[:channels]
        table[:, row, :] = flat.reshape(groups, 4)
    return table.reshape(-1)


def im2col_general(multipliers: np.ndarray, shifts: np.ndarray) -> int:
    """1 when some channel needs the general requantization (a left shift, or the one multiplier
    whose doubling product saturates), as ``hk_requant_mode`` decides at run time; else 0."""
    return int(
        bool(np.any(np.asarray(shifts) > 0) or np.any(np.asarray(multipliers) == np.iinfo(np.int32).min))
    )
