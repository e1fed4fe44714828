"""The C kernel against the numpy reference, called directly through ctypes.

Random parameters over their whole ranges plus the edges (shift 0 and 24, ties, both clips); the
kernel is compiled with warnings as errors and UBSan, so an overflow fails the test.
"""

from __future__ import annotations

import ctypes
import subprocess

import numpy as np
import pytest
from helia_aot_example_ops.gain_clip import KERNEL_DIR, KERNEL_FAMILY
from helia_aot_example_ops.reference import gain_clip

CFLAGS = [
    "-std=c99",
    "-O1",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-fPIC",
    "-shared",
    "-fsanitize=undefined",
    "-fno-sanitize-recover=all",
]


class Params(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_int32)
        for name in ("input_offset", "output_offset", "gain", "shift", "clip_min", "clip_max")
    ]


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    library = tmp_path_factory.mktemp("kernel") / "libgainclip.so"
    subprocess.run(
        ["gcc", *CFLAGS, str(KERNEL_DIR / f"{KERNEL_FAMILY}.c"), "-o", str(library)],
        check=True,
        capture_output=True,
        text=True,
    )
    function = ctypes.CDLL(str(library)).hk_exops_gain_clip_s8
    function.restype = ctypes.c_int32
    function.argtypes = [ctypes.POINTER(Params), ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32]
    return function


def run(kernel, x, *, gain, shift, clip_min=-128, clip_max=127, input_zero_point=0, output_zero_point=0):
    x = np.ascontiguousarray(x, dtype=np.int8)
    out = np.zeros_like(x)
    params = Params(-input_zero_point, output_zero_point, gain, shift, clip_min, clip_max)
    status = kernel(ctypes.byref(params), x.ctypes.data, out.ctypes.data, x.size)
    return status, out


def test_every_input_value_at_the_extremes(kernel):
    x = np.arange(-128, 128, dtype=np.int8)
    for gain in (-32768, -1, 0, 1, 255, 32767):
        for shift in (0, 1, 7, 24):
            for zp_in, zp_out in ((0, 0), (-128, 127), (127, -128), (3, -5)):
                status, out = run(
                    kernel, x, gain=gain, shift=shift, input_zero_point=zp_in, output_zero_point=zp_out
                )
                expected = gain_clip(
                    x, gain=gain, shift=shift, input_zero_point=zp_in, output_zero_point=zp_out
                )
                assert status == 0
                np.testing.assert_array_equal(out, expected, err_msg=f"{gain=} {shift=} {zp_in=}")


def test_random_parameters(kernel):
    rng = np.random.default_rng(7)
    for _ in range(300):
        clip_min, clip_max = sorted(int(v) for v in rng.integers(-128, 128, size=2))
        settings = dict(
            gain=int(rng.integers(-32768, 32768)),
            shift=int(rng.integers(0, 25)),
            clip_min=clip_min,
            clip_max=clip_max,
            input_zero_point=int(rng.integers(-128, 128)),
            output_zero_point=int(rng.integers(-128, 128)),
        )
        x = rng.integers(-128, 128, size=int(rng.integers(1, 64)), dtype=np.int8)
        status, out = run(kernel, x, **settings)
        assert status == 0
        np.testing.assert_array_equal(out, gain_clip(x, **settings), err_msg=str(settings))


def test_ties_round_away_from_zero(kernel):
    # (x * 3) / 2 with x = +-1 and +-3 lands exactly on .5: away from zero gives +-2 and +-5.
    x = np.array([1, -1, 3, -3], dtype=np.int8)
    status, out = run(kernel, x, gain=3, shift=1)
    assert status == 0
    assert out.tolist() == [2, -2, 5, -5]


def test_in_place(kernel):
    x = np.arange(-128, 128, dtype=np.int8)
    expected = gain_clip(x, gain=-77, shift=5, clip_min=-90, clip_max=60)
    params = Params(0, 0, -77, 5, -90, 60)
    assert kernel(ctypes.byref(params), x.ctypes.data, x.ctypes.data, x.size) == 0
    np.testing.assert_array_equal(x, expected)


def test_status_codes(kernel):
    x = np.zeros(4, dtype=np.int8)
    params = Params(0, 0, 1, 0, -128, 127)
    assert kernel(ctypes.byref(params), None, x.ctypes.data, 4) == 1
    assert kernel(None, x.ctypes.data, x.ctypes.data, 4) == 1
    for bad in (
        Params(0, 0, 1, 25, -128, 127),
        Params(0, 0, 1, 0, 10, -10),
        Params(0, 0, 40000, 0, -128, 127),
        Params(0, 0, 1, -1, -128, 127),
    ):
        assert kernel(ctypes.byref(bad), x.ctypes.data, x.ctypes.data, 4) == 2
