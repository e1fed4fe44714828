"""Which int8 CONV_2D calls take the im2col kernel (hk_conv_im2col), and the layout it reads.

The converter picks ``hk_conv_s8_im2col`` by shape at conversion (a window over at most 8 input
channels, or a 1x1 filter whose pixels fit half a vector) and packs its filters and
requantization table then; the run function calls it under ``HK_HAVE_MVE`` only, every other
core keeping the call it made before. A model with one convolution of each kind is converted
with its golden test, which must pass on the host (portable C) and on the Cortex-M55 under QEMU
(Helium), bit for bit with the reference interpreter; the packing is checked against the order
the kernel's loop reads.
"""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import cross_build_module, run_module_test_case, run_qemu
from helia_aot_ops_builtin.conv.im2col_packing import im2col_applies, im2col_packed, im2col_quant


def _conv(b, rng, x, shape_out, filt, stride, padding, name):
    oc, kh, kw, ic = filt
    w = b.add_tensor(
        f"{name}_w",
        filt,
        "int8",
        data=rng.integers(-127, 128, filt).astype(np.int8),
        quantization=(rng.uniform(0.004, 0.012, oc).astype(np.float32), np.zeros(oc), 0),
    )
    bias = b.add_tensor(
        f"{name}_b",
        (oc,),
        "int32",
        data=rng.integers(-2000, 2000, oc),
        quantization=(np.full(oc, 0.0004, np.float32), np.zeros(oc), 0),
    )
    y = b.add_tensor(name, shape_out, "int8", quantization=(0.08, -3))
    options = litert.Conv2DOptionsT()
    options.padding = padding
    options.strideH = options.strideW = stride
    options.fusedActivationFunction = litert.ActivationFunctionType.RELU
    b.add_operator("CONV_2D", [x, w, bias], [y], options)
    return y


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    """VWW's first two convolutions in small (3x3 stride 2 over 3 channels, pointwise 8 -> 16)
    and a 3x3 over 16 channels, converted with a golden test."""
    work = tmp_path_factory.mktemp("im2col")
    rng = np.random.default_rng(17)
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 9, 10, 3), "int8", quantization=(0.05, 5))
    same, valid = litert.Padding.SAME, litert.Padding.VALID
    c0 = _conv(b, rng, x, (1, 5, 5, 8), (8, 3, 3, 3), 2, same, "c0")
    c1 = _conv(b, rng, c0, (1, 5, 5, 16), (16, 1, 1, 8), 1, valid, "c1")
    c2 = _conv(b, rng, c1, (1, 5, 5, 4), (4, 3, 3, 16), 1, same, "c2")
    b.set_inputs([x])
    b.set_outputs([c2])
    path = b.save(work / "model.tflite")
    config = {
        "model": {"path": str(path)},
        "module": {"path": str(work / "out"), "name": "module"},
        "test": {"enabled": True, "samples": 2, "tolerance": 0.0},
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert()


def _run_source(result, index: int) -> str:
    return (result.output / "src" / f"{result.prefix}_conv_2d_{index}.c").read_text()


def test_few_channels_take_im2col_on_helium_only(module):
    for index in (0, 1):
        text = _run_source(module, index)
        helium, other = text.split("#else")
        assert f"{module.prefix}_hk_conv_s8_im2col(" in helium
        assert "im2col" not in other and f"{module.prefix}_hk_conv_s8" in other
    pointwise = _run_source(module, 1).split("#else")[0]
    assert ".half = 1" in pointwise and ".conv.scratch" not in pointwise  # pixels read in place
    assert "im2col" not in _run_source(module, 2)  # 16 input channels: the conv family's paths
    assert (module.output / "src" / "kernels" / f"{module.prefix}_hk_conv_im2col_mve.c").exists()


def test_portable_path_matches_the_reference(module, tmp_path):
    run = run_module_test_case(module.output, tmp_path, prefix=module.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


@pytest.mark.cross
def test_helium_path_matches_the_reference(module, tmp_path):
    elf = cross_build_module(module.output, tmp_path, "m55", prefix=module.prefix)
    run = run_qemu(elf, "m55", timeout=120, count=False)
    assert run.passed, run


def test_selection_by_shape():
    assert im2col_applies(3, 3, 3, 3) and im2col_applies(10, 4, 1, 1) and im2col_applies(1, 1, 8, 8)
    assert not im2col_applies(3, 3, 16, 16)  # many channels: the conv family's paths
    assert not im2col_applies(3, 3, 1, 3)  # grouped
    assert im2col_applies(1, 1, 3, 3)  # a pixel fits half a vector: two pixels per vector
    assert not im2col_applies(1, 1, 16, 16)  # a whole vector per pixel: conv_small_s8 already


def test_packing_is_the_loops_read_order():
    rng = np.random.default_rng(3)
    w = rng.integers(-127, 128, (5, 3, 3, 3)).astype(np.int8)  # 27 taps: 2 vectors, 2 groups
    packed = im2col_packed(w).reshape(2, 2, 4, 16)  # group, vector, filter, lane
    rows = np.zeros((8, 32), np.int8)
    rows[:5, :27] = w.reshape(5, 27)
    for g in range(2):
        for k in range(2):
            for j in range(4):
                assert (packed[g, k, j] == rows[4 * g + j, 16 * k : 16 * k + 16]).all()
    half = im2col_packed(w[:, :1, :1, :]).reshape(2, 4, 16)  # 3 taps, twice per row
    assert (half[0, 1, :3] == w[1, 0, 0]).all() and (half[0, 1, 8:11] == w[1, 0, 0]).all()
    assert not half[1, 1:].any()  # filters 5..7 are padding
    quant = im2col_quant(np.arange(8), np.arange(10, 15), -np.arange(1, 6)).reshape(2, 3, 4)
    assert quant[1, 0].tolist() == [4, 0, 0, 0] and quant[1, 1].tolist() == [14, 0, 0, 0]
    assert quant[0, 2].tolist() == [-1, -2, -3, -4]
