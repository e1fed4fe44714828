"""Goal ``size`` below the layer-by-layer bound: in-place convolutions and a chosen operator order.

Why: under ``optimization.goal: size`` a CONV_2D or DEPTHWISE_CONV_2D whose input dies where it
runs writes its output over that input, one output row at a time through a small ring
(helia_aot_ops_builtin.conv.row_stream), and branches run in the order with the smallest peak. Both
change which bytes hold what while the model runs, never a result: random chains of convolution,
depthwise, pooling and elementwise layers (strides, dilations, paddings, channel counts) must
give the reference interpreter's outputs bit for bit (float32 within the usual bound), compiled
under ASan/UBSan, which also catches a row read after it was overwritten's neighbours spill.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from unittest import mock

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert import schema_py_generated as litert
from helia_aot.testing import cross_build_module, run_module_test_case, run_qemu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ops_builtin.conv.test_conv_family_ops import _Model, _options

PADDING = {"SAME": litert.Padding.SAME, "VALID": litert.Padding.VALID}


def _out(size: int, k: int, stride: int, dilation: int, padding: str) -> int:
    if padding == "SAME":
        return -(-size // stride)
    return (size - (k - 1) * dilation - 1) // stride + 1


def draw_window_layer(
    draw: st.DrawFn, kind: str, h: int, w: int, c: int, *, max_out_c: int
) -> tuple[dict, int, int]:
    """A conv / depthwise / pool layer spec over an h x w x c input (a conv widening to at most
    max_out_c channels) and its output height and width, which the caller checks: below one
    (or too small for its purpose) it drops or re-pads the layer."""
    k = draw(st.sampled_from([1, 2, 3]))
    stride = draw(st.sampled_from([1, 1, 2]))
    dilation = draw(st.sampled_from([1, 1, 2])) if kind != "pool" else 1
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    oh, ow = _out(h, k, stride, dilation, padding), _out(w, k, stride, dilation, padding)
    spec = {"kind": kind, "k": k, "stride": stride, "dilation": dilation, "padding": padding}
    if kind == "conv":
        spec["out_c"] = draw(st.integers(1, max_out_c))
    elif kind == "pool":
        spec["max"] = draw(st.booleans())
    return spec, oh, ow


@st.composite
def layer_chains(draw: st.DrawFn) -> dict:
    """A chain spec: input shape, dtype, and two to four layers whose shapes stay valid."""
    dtype = draw(st.sampled_from(["int8", "int8", "int16", "float32"]))
    h, w, c = draw(st.integers(4, 9)), draw(st.integers(3, 8)), draw(st.integers(1, 6))
    h0, w0, c0 = h, w, c
    layers = []
    for _ in range(draw(st.integers(2, 4))):
        kind = draw(st.sampled_from(["conv", "depthwise", "depthwise", "pool", "add"]))
        if kind == "add":
            layers.append({"kind": "add"})
            continue
        spec, oh, ow = draw_window_layer(draw, kind, h, w, c, max_out_c=2 * c)
        if min(oh, ow) < 1:
            continue
        c = spec.get("out_c", c)
        layers.append(spec)
        h, w = oh, ow
    input_shape = (h0, w0, c0)
    return {
        "dtype": dtype,
        "input": input_shape,
        "layers": layers or [{"kind": "add"}],
        "seed": draw(st.integers(0, 99)),
    }


def build_chain(spec: dict, h: int, w: int, c: int, path: Path) -> Path:
    m = _Model(spec["dtype"], seed=spec["seed"])
    x, current = add_chain(m, spec, h, w, c)
    m.b.set_inputs([x])
    m.b.set_outputs([current])
    return m.b.save(path)


def add_chain(m: _Model, spec: dict, h: int, w: int, c: int, tag: str = "") -> tuple[int, int]:
    """Adds the chain ``spec`` to ``m`` (tensor names prefixed by ``tag``): (input, output)."""
    dtype = spec["dtype"]
    scale = {"float32": None, "int8": 0.05, "int16": 0.002}[dtype]
    zp = 3 if dtype == "int8" else 0

    def act(name: str, shape: tuple[int, ...]) -> int:
        return m.act(tag + name, shape, scale, zp)

    x = act("x", (1, h, w, c))
    current, shape = x, (1, h, w, c)
    for i, layer in enumerate(spec["layers"]):
        _, h, w, c = shape
        if layer["kind"] == "add":
            out = act(f"l{i}", shape)
            m.b.add_operator("ADD", [current, current], [out], None)
            current = out
            continue
        k, s, d, pad = layer["k"], layer["stride"], layer["dilation"], layer["padding"]
        oh, ow = _out(h, k, s, d, pad), _out(w, k, s, d, pad)
        if layer["kind"] == "pool":
            out = act(f"l{i}", (1, oh, ow, c))
            opts = _options(
                litert.Pool2DOptionsT,
                padding=PADDING[pad],
                strideH=s,
                strideW=s,
                filterHeight=k,
                filterWidth=k,
            )
            m.b.add_operator("MAX_POOL_2D" if layer["max"] else "AVERAGE_POOL_2D", [current], [out], opts)
        elif layer["kind"] == "depthwise":
            out = act(f"l{i}", (1, oh, ow, c))
            opts = _options(
                litert.DepthwiseConv2DOptionsT,
                padding=PADDING[pad],
                strideH=s,
                strideW=s,
                depthMultiplier=1,
                dilationHFactor=d,
                dilationWFactor=d,
            )
            weights = m.weights(f"{tag}w{i}", (1, k, k, c), axis=3)
            m.b.add_operator(
                "DEPTHWISE_CONV_2D", [current, weights, m.bias(f"{tag}b{i}", c, scale)], [out], opts
            )
        else:
            oc = layer["out_c"]
            out = act(f"l{i}", (1, oh, ow, oc))
            opts = _options(
                litert.Conv2DOptionsT,
                padding=PADDING[pad],
                strideH=s,
                strideW=s,
                dilationHFactor=d,
                dilationWFactor=d,
                quantizedBiasType=litert.TensorType.INT32 if dtype == "int16" else 0,
            )
            weights = m.weights(f"{tag}w{i}", (oc, k, k, c))
            bias = m.bias(f"{tag}b{i}", oc, scale, "int32" if dtype == "int16" else None)
            m.b.add_operator("CONV_2D", [current, weights, bias], [out], opts)
            c = oc
        current, shape = out, (1, oh, ow, c)
    return x, current


def convert(
    model: Path,
    out: Path,
    dtype: str,
    goal: str = "size",
    html: bool = False,
    *,
    kernel: str | None = None,
    prefix: str | None = None,
):
    """Convert with the module test on (exact for integers, the usual bound for float32)."""
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(out), "name": "module", **({"prefix": prefix} if prefix else {})},
        "test": {"enabled": True, "samples": 2, "tolerance": 1e-5 if dtype == "float32" else 0.0},
        "optimization": {"goal": goal, **({"kernel": kernel} if kernel else {})},
        "documentation": {"html": html},
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert()


def _report(result) -> dict:
    return json.loads((result.output / f"{result.prefix}_report.json").read_text())


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=layer_chains(), block=st.sampled_from([None, 2, 3]))
def test_random_chains_match_the_reference_in_place_at_size(spec, block, tmp_path_factory):
    """Row loops one row per call, or (``block``) several rows per call through a ring of whole
    blocks, give the reference's outputs."""
    tmp = tmp_path_factory.mktemp("chain")
    model = build_chain(spec, *spec["input"], tmp / "model.tflite")
    with mock.patch("helia_aot.pipeline.plan_choices.FORCE_ROW_BLOCK", block):
        result = convert(model, tmp / "out", spec["dtype"])
    run = run_module_test_case(result.output, tmp / "build", prefix=result.prefix)
    assert run.passed, f"{spec}\n{run.stdout}\n{run.stderr[-3000:]}"


def test_a_depthwise_chain_writes_in_place_and_lowers_the_arena(tmp_path):
    """8x8x2 -> pointwise conv to 8 channels (512 B) -> depthwise 3x3 -> pointwise -> depthwise
    stride 2, int8. Layer by layer two 512 B activations are live at once (1,024 B); at size the
    depthwise and pointwise layers write over their inputs through rings of two rows (128 B),
    so the peak is the first layer's 128 B input and 512 B output (640 B). The pointwise layer's
    ring of one row would do, but two rows fit the same bound and halve its kernel calls (two
    rows per call). The stride-2 depthwise (512 B in, 128 B out) is already at that bound and
    stays out of place: it would pay the row loop for nothing. Both modules match the
    reference."""
    spec = {
        "dtype": "int8",
        "seed": 3,
        "layers": [
            {"kind": "conv", "k": 1, "stride": 1, "dilation": 1, "padding": "SAME", "out_c": 8},
            {"kind": "depthwise", "k": 3, "stride": 1, "dilation": 1, "padding": "SAME"},
            {"kind": "conv", "k": 1, "stride": 1, "dilation": 1, "padding": "SAME", "out_c": 8},
            {"kind": "depthwise", "k": 3, "stride": 2, "dilation": 1, "padding": "SAME"},
        ],
    }
    model = build_chain(spec, 8, 8, 2, tmp_path / "model.tflite")
    figures = {}
    for goal in ("balanced", "size"):
        result = convert(model, tmp_path / goal, "int8", goal, html=True)
        run = run_module_test_case(result.output, tmp_path / f"build_{goal}", prefix=result.prefix)
        assert run.passed, run.stdout + run.stderr[-3000:]
        page = (result.output / f"{result.prefix}_report.html").read_text(encoding="utf-8")
        # The memory picture marks each in-place column, the operator table says why.
        assert page.count('<text class="technique"') == (2 if goal == "size" else 0)
        assert page.count('<span class="technique">') == (2 if goal == "size" else 0)
        (scratch,) = [a for a in result.arenas if a["role"] == "scratch"]
        report = _report(result)
        rings = [(op["op_type"], op["memory_technique"], op["ring_bytes"]) for op in report["operators"]]
        bounds = (report["schedule"]["layer_bound"], scratch["tensor_peak_live"])
        figures[goal] = (scratch["used"], bounds, rings)
    plain = [
        ("CONV_2D", None, 0),
        ("DEPTHWISE_CONV_2D", None, 0),
        ("CONV_2D", None, 0),
        ("DEPTHWISE_CONV_2D", None, 0),
    ]
    assert figures["balanced"][1:] == ((1024, 1024), plain)
    assert figures["size"] == (
        640,
        (1024, 640),
        [
            ("CONV_2D", None, 0),
            ("DEPTHWISE_CONV_2D", "in_place", 128),
            ("CONV_2D", "in_place", 128),
            ("DEPTHWISE_CONV_2D", None, 0),
        ],
    )


CROSS_CHAIN = {
    "dtype": "int8",
    "seed": 11,
    "layers": [
        {"kind": "conv", "k": 1, "stride": 1, "dilation": 1, "padding": "SAME", "out_c": 16},
        {"kind": "depthwise", "k": 3, "stride": 1, "dilation": 2, "padding": "SAME"},
        {"kind": "conv", "k": 3, "stride": 1, "dilation": 1, "padding": "SAME", "out_c": 16},
        {"kind": "add"},
        {"kind": "depthwise", "k": 3, "stride": 2, "dilation": 1, "padding": "VALID"},
        {"kind": "conv", "k": 1, "stride": 1, "dilation": 1, "padding": "SAME", "out_c": 8},
        {"kind": "conv", "k": 3, "stride": 1, "dilation": 1, "padding": "SAME", "out_c": 16},
        {"kind": "pool", "k": 2, "stride": 2, "dilation": 1, "padding": "VALID", "max": False},
    ],
}
"""Depthwise with dilation, a padded 3x3 convolution, a stride-2 VALID depthwise and a shrinking
pointwise convolution, all written in place at size, and a padded 3x3 convolution that doubles
the channels (written last row first over bytes running past its input's end), with an
elementwise ADD and a pool between."""


@pytest.mark.cross
def test_an_in_place_chain_matches_the_reference_on_the_m55(tmp_path, monkeypatch):
    """The Helium fast paths (specialized kernels) called on blocks of rows, under QEMU. Every
    qualifying layer streams (not only those above the bound), so each loop variant runs."""
    monkeypatch.setattr("helia_aot.pipeline.plan_choices.INPLACE_ONLY_ABOVE_BOUND", False)
    # Three rows per call where the rows run first row first (the MLPerf models at size run the
    # blocks the bound allows: one and two rows).
    monkeypatch.setattr("helia_aot.pipeline.plan_choices.FORCE_ROW_BLOCK", 3)
    model = build_chain(CROSS_CHAIN, 12, 10, 4, tmp_path / "model.tflite")
    result = convert(model, tmp_path / "out", "int8", kernel="specialized", prefix="m")
    techniques = [op["memory_technique"] for op in _report(result)["operators"]]
    assert techniques.count("in_place") == 5, techniques
    elf = cross_build_module(result.output, tmp_path / "m55", "m55", prefix="m")
    run = run_qemu(elf, "m55", timeout=300, count=False)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout


def test_branches_run_one_after_the_other_at_size(tmp_path):
    """Two branches from one input, each widening to 16 channels then narrowing to one, joined by
    a CONCATENATION, stored interleaved (both wide tensors live at once). At size the planner runs
    one branch to its end before the other; the module follows that order and matches the
    reference, and the report gives both bounds."""
    m = _Model("int8", seed=5)
    x = m.act("x", (1, 8, 8, 2), 0.05, 3)
    opts = _options(litert.Conv2DOptionsT, padding=PADDING["SAME"], strideH=1, strideW=1)
    wide, narrow = {}, {}
    for branch in ("a", "b"):
        wide[branch] = m.act(f"{branch}1", (1, 8, 8, 16), 0.05, 3)
        narrow[branch] = m.act(f"{branch}2", (1, 8, 8, 1), 0.05, 3)
    for branch in ("a", "b"):  # stored: a1, b1, a2, b2
        w = m.weights(f"w{branch}1", (16, 1, 1, 2))
        m.b.add_operator("CONV_2D", [x, w, m.bias(f"b{branch}1", 16, 0.05)], [wide[branch]], opts)
    for branch in ("a", "b"):
        w = m.weights(f"w{branch}2", (1, 1, 1, 16))
        m.b.add_operator("CONV_2D", [wide[branch], w, m.bias(f"b{branch}2", 1, 0.05)], [narrow[branch]], opts)
    y = m.act("y", (1, 8, 8, 2), 0.05, 3)
    m.b.add_operator(
        "CONCATENATION", [narrow["a"], narrow["b"]], [y], _options(litert.ConcatenationOptionsT, axis=3)
    )
    m.b.set_inputs([x])
    m.b.set_outputs([y])
    model = m.b.save(tmp_path / "branches.tflite")
    result = convert(model, tmp_path / "out", "int8")
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, run.stdout + run.stderr[-3000:]
    schedule = _report(result)["schedule"]
    assert (schedule["method"], schedule["reordered"]) == ("exact", True)
    assert schedule["order"] == ["0:a1", "0:a2", "0:b1", "0:b2", "0:y"]
    # Stored: x, a1 and b1 live at once (128 + 1,024 + 1,024 B); chosen: x, a1 and a2, then x, a2
    # and b1 (128 + 1,024 + 64 B).
    assert (schedule["layer_bound"], schedule["schedule_bound"]) == (2176, 1216)
    source = (result.output / "src" / f"{result.prefix}_model.c").read_text()
    runs = re.findall(rf"{result.prefix}_(\w+?)_run\}}", source)
    assert runs == ["conv_2d_0", "conv_2d_2", "conv_2d_1", "conv_2d_3", "concatenation_4"]
