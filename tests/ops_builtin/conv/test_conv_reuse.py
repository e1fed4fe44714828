"""hk_conv_s8_reuse: the int8 CONV_2D fast path with its scratch in the operator's dead bytes.

At goal balanced the converter gives a convolution at the arena's peak no buffer of its own: the
kernel runs hk_conv_s8's fast path over bands of output rows, each band's scratch in the output
rows not written yet or in the input rows no remaining window reads. Whatever the bands (one,
several, or one with no room that runs without scratch), the result must be the reference's
integers: each band's shifted input and remaining top padding are where an error would show.
The tensors are given exactly their own bytes, so a band writing outside them fails under UBSan
or corrupts the compared output.
"""

from __future__ import annotations

import ctypes

import numpy as np
from helia_aot_ops_builtin.common.weighted_prepare import conv_s8_scratch_bytes, offset_bias
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.conv.test_conv import ConvParams, _geometry_args, _quant, _shapes
from ops_builtin.support import conv_family_refmodels as ref
from ops_builtin.support.cbuild import build_kernels


def _reuse():
    fn = build_kernels("conv_reuse").hk_conv_s8_reuse
    fn.argtypes = [ctypes.POINTER(ConvParams), *[ctypes.c_void_p] * 4]
    fn.restype = ctypes.c_int32
    return fn


@st.composite
def band_geometries(draw):
    """Ungrouped geometries whose scratch is large against a row: one band, several, or none
    that fits (then a band runs without scratch)."""
    c = draw(st.sampled_from([1, 3, 8, 16, 17, 64]))
    kh, kw = draw(st.sampled_from([(1, 1), (1, 1), (3, 3), (2, 5)]))
    geo = {
        "batches": draw(st.integers(1, 2)),
        "input_height": draw(st.integers(1, 12)),
        "input_width": draw(st.integers(1, 6)),
        "filter_input_channels": c,
        "input_channels": c,
        "output_channels": draw(st.sampled_from([1, 4, 5, 16, 64])),
        "filter_height": kh,
        "filter_width": kw,
        "stride_height": draw(st.integers(1, 2)),
        "stride_width": draw(st.integers(1, 2)),
        "dilation_height": draw(st.integers(1, 2)),
        "dilation_width": 1,
    }
    mode = draw(st.sampled_from(["SAME", "VALID"]))
    for axis, size in (("height", "input_height"), ("width", "input_width")):
        out, pad = ref.litert_out_pad(
            mode, geo[size], geo[f"filter_{axis}"], geo[f"stride_{axis}"], geo[f"dilation_{axis}"]
        )
        geo[f"output_{axis}"], geo["pad_top" if axis == "height" else "pad_left"] = max(out, 1), pad
    return geo, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=25, deadline=None)
@given(band_geometries(), st.sampled_from([-128, -3, 0, 127]))
def test_reuse_kernel_gives_the_reference_integers_in_every_band(case, zp_in):
    geo, seed = case
    rng = np.random.default_rng(seed)
    xs, ws, ys = _shapes(geo)
    x = rng.integers(-128, 127, xs, dtype=np.int8, endpoint=True)
    w = rng.integers(-128, 127, ws, dtype=np.int8, endpoint=True)
    bias = rng.integers(-(1 << 20), 1 << 20, geo["output_channels"], dtype=np.int32)
    mult, shift, lo, hi = _quant(rng, geo, np.int8, (-12, 0))
    zp_out = int(rng.integers(-128, 127, endpoint=True))
    folded = offset_bias(w, bias, -zp_in, 0, pad_to=4)
    p = ConvParams(**geo, input_offset=-zp_in, output_offset=zp_out, act_min=lo, act_max=hi)
    p.output_multiplier = mult.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    p.output_shift = shift.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    p.offset_bias = folded.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    # The tensors as the planner lays them out (16-byte aligned), nothing more to write into.
    x_buf = np.zeros(x.nbytes + 16, np.uint8)
    x_at = (-x_buf.ctypes.data) % 16
    x_buf[x_at : x_at + x.nbytes] = x.reshape(-1).view(np.uint8)
    y_buf = np.zeros(int(np.prod(ys)) + 16, np.uint8)
    y_at = (-y_buf.ctypes.data) % 16
    status = _reuse()(
        ctypes.byref(p), x_buf.ctypes.data + x_at, w.ctypes.data, bias.ctypes.data, y_buf.ctypes.data + y_at
    )
    y = y_buf[y_at : y_at + int(np.prod(ys))].view(np.int8).reshape(ys)
    acc = ref.conv_accumulate(x, w, input_offset=-zp_in, **_geometry_args(geo))
    assert status == 0
    np.testing.assert_array_equal(y, ref.requantize(acc, bias, mult, shift, zp_out, (lo, hi), np.int8))


def test_the_scratch_size_the_bands_need_is_the_fast_paths():
    # The converter sizes the bands with conv_s8_scratch_bytes, the C with hk_conv_s8_scratch_size.
    fn = build_kernels("conv_reuse").hk_conv_s8_scratch_size
    fn.argtypes = [ctypes.POINTER(ConvParams)]
    fn.restype = ctypes.c_int32
    for kh, kw, c, oc in ((1, 1, 64, 64), (3, 3, 16, 16), (1, 1, 8, 16)):
        p = ConvParams(filter_height=kh, filter_width=kw, input_channels=c, filter_input_channels=c)
        p.output_channels = oc
        assert fn(ctypes.byref(p)) == conv_s8_scratch_bytes(kh, kw, c, c, oc) > 0
