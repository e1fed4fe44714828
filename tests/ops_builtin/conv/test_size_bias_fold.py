"""Goal ``size`` folds the input offset into the bias it replaces, only where that is exact and free.

Why: a convolution's folded bias (``bias + input_offset * Sum(w)`` per output channel) lets the
kernels skip the filters' sums and the per-input offset, but balanced emits it BESIDE the
model's bias (a new constant). At size it replaces the bias instead, with the kernel's input
offset set to 0, which gives the reference's integers only where no tap is ever padded (every
window inside the input) and costs nothing only where this operator is the constant bias's sole
reader. A builder-made chain holds each case: a pointwise and a VALID depthwise layer that fold,
and a padded 3x3 layer and two layers sharing one bias tensor that keep today's size form (the
model's bias, the input offset applied in the kernel). The module must match the reference
interpreter bit for bit (host, ASan/UBSan), name the folded bias only where expected, store the
same constant bytes as without the fold, and leave goal balanced untouched.
"""

from __future__ import annotations

import re
from pathlib import Path
from unittest import mock

import pytest
from helia_aot.litert import schema_py_generated as litert
from helia_aot.testing import run_module_test_case

from ops_builtin.conv.test_conv_family_ops import _Model, _options
from ops_builtin.conv.test_memory_size_goal import convert

ZP = 3  # the input zero point of every layer: input_offset -3 where it is not folded


def _conv(m: _Model, name: str, x: int, shape_in, oc: int, k: int, padding: int, bias: int) -> int:
    _, h, w, c = shape_in
    out = m.act(
        name,
        (
            1,
            h if padding == litert.Padding.SAME else h - k + 1,
            w if padding == litert.Padding.SAME else w - k + 1,
            oc,
        ),
        0.05,
        ZP,
    )
    opts = _options(
        litert.Conv2DOptionsT, padding=padding, strideH=1, strideW=1, dilationHFactor=1, dilationWFactor=1
    )
    weights = m.weights(f"{name}_w", (oc, k, k, c))
    m.b.add_operator("CONV_2D", [x, weights, bias], [out], opts)
    return out


def build(path: Path) -> Path:
    """x (1x6x7x8) -> pointwise 8->16 (own bias: folds) -> 3x3 SAME 16->16 (padded: keeps) ->
    pointwise 16->16 and again pointwise 16->16 (one bias tensor for both: keeps) -> depthwise
    3x3 VALID (own bias: folds). (The reference's int8 CONV_2D needs a bias, so a layer without
    one cannot be checked here; ``_bias_folds`` refuses it first.)"""
    m = _Model("int8", seed=18)
    x = m.act("x", (1, 6, 7, 8), 0.05, ZP)
    a = _conv(m, "fold_pw", x, (1, 6, 7, 8), 16, 1, litert.Padding.VALID, m.bias("fold_pw_b", 16, 0.05))
    b = _conv(
        m, "keep_padded", a, (1, 6, 7, 16), 16, 3, litert.Padding.SAME, m.bias("keep_padded_b", 16, 0.05)
    )
    shared = m.bias("shared_b", 16, 0.05)
    c = _conv(m, "keep_shared1", b, (1, 6, 7, 16), 16, 1, litert.Padding.VALID, shared)
    d = _conv(m, "keep_shared2", c, (1, 6, 7, 16), 16, 1, litert.Padding.VALID, shared)
    out = m.act("fold_dw", (1, 4, 5, 16), 0.05, ZP)
    opts = _options(
        litert.DepthwiseConv2DOptionsT,
        padding=litert.Padding.VALID,
        strideH=1,
        strideW=1,
        depthMultiplier=1,
        dilationHFactor=1,
        dilationWFactor=1,
    )
    weights = m.weights("fold_dw_w", (1, 3, 3, 16), axis=3)
    m.b.add_operator("DEPTHWISE_CONV_2D", [d, weights, m.bias("fold_dw_b", 16, 0.05)], [out], opts)
    m.b.set_inputs([x])
    m.b.set_outputs([out])
    return m.b.save(path)


def _calls(result) -> dict[str, str]:
    """Each convolution's source file by its operator index (conv_2d_<i>, depthwise_conv_2d_<i>)."""
    files = sorted((result.output / "src").glob(f"{result.prefix}_*conv_2d_*.c"))
    return {re.sub(rf"^{result.prefix}_", "", f.stem): f.read_text() for f in files}


def _constants(result) -> int:
    return sum(a.used for a in result.report.arenas if str(a.role) == "constant")


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("fold") / "model.tflite")


def test_size_folds_the_offset_only_where_exact_and_matches_the_reference(model, tmp_path):
    result = convert(model, tmp_path / "size", "int8")
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, run.stdout + run.stderr[-3000:]
    calls = _calls(result)
    assert set(calls) == {"conv_2d_0", "conv_2d_1", "conv_2d_2", "conv_2d_3", "depthwise_conv_2d_4"}
    folds = {name for name, text in calls.items() if "_folded_bias]" in text}
    assert folds == {"conv_2d_0", "depthwise_conv_2d_4"}, folds
    for name, text in calls.items():
        offset = "0" if name in folds else str(-ZP)
        assert re.search(rf"\.input_offset = {offset},", text), (name, text)


def test_the_fold_stores_no_more_constants_and_balanced_is_unchanged(model, tmp_path):
    folded = _constants(convert(model, tmp_path / "size", "int8"))
    with mock.patch("helia_aot_ops_builtin.conv.conv._WindowOperator._bias_folds", return_value=False):
        unfolded = _constants(convert(model, tmp_path / "size_unfolded", "int8"))
    assert folded == unfolded, (folded, unfolded)
    balanced = convert(model, tmp_path / "balanced", "int8", goal="balanced")
    assert not any("_folded_bias]" in text for text in _calls(balanced).values())
