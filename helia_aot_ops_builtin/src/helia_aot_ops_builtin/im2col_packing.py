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


def im2col_column(kernel_h: int, kernel_w: int, channels: int) -> int:
    """Bytes of one gathered receptive field, rounded up to whole 16-byte vectors."""
    return (kernel_h * kernel_w * channels + 15) & ~15


def im2col_applies(kernel_h: int, kernel_w: int, filter_channels: int, channels: int) -> bool:
    """Whether the shape suits the im2col kernel: ungrouped, a window (not 1x1), few channels."""
    return filter_channels == channels and channels <= IM2COL_MAX_CHANNELS and kernel_h * kernel_w > 1


def im2col_packed(weights: np.ndarray) -> np.ndarray:
    """OHWI int8 filters in the kernel's read order (see the module docstring), flattened."""
    oc, kh, kw, c = weights.shape
    taps = kh * kw * c
    column = im2col_column(kh, kw, c)
    groups = -(-oc // 4)
    rows = np.zeros((groups * 4, column), np.int8)
    rows[:oc, :taps] = np.asarray(weights, np.int8).reshape(oc, taps)
    order = rows.reshape(groups, 4, column // 16, 16).transpose(0, 2, 1, 3)
    return np.ascontiguousarray(order).reshape(-1)
