"""Elementwise math, comparison, logical and select models built with the LiteRT builder match
the reference interpreter once converted, built (ASan/UBSan) and run on the host.

Each model holds several operators over one set of inputs, so one conversion covers many
operators; the parameters span shapes, element types (float32, int8, int32, bool) and broadcast
patterns. Integer and bool outputs must match exactly, float outputs exactly as well (the host C
library is the one the reference interpreter calls).
"""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.pack import LiteRTModelBuilder
from helia_aot.testing import convert_model, run_golden, write_golden

RNG_SEED = 13


def reference(model: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Run a model through LiteRT's BUILTIN_REF interpreter, or, for CEIL and ROUND, which it
    lacks, the builtin kernels without delegates (as the corpus manifest records them)."""
    try:
        it = Interpreter(model_content=model, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    except ValueError as error:
        assert "CEIL" in str(error) or "ROUND" in str(error), error
        it = Interpreter(
            model_content=model,
            experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
        )
    it.allocate_tensors()
    for detail, x in zip(it.get_input_details(), inputs):
        it.set_tensor(detail["index"], x)
    it.invoke()
    return [it.get_tensor(d["index"]) for d in it.get_output_details()]


def check(builder: LiteRTModelBuilder, inputs: list[np.ndarray], tmp_path) -> list[np.ndarray]:
    """Convert the model with its reference outputs as golden data and run the module's self test."""
    model = builder.to_bytes()
    expected = reference(model, inputs)
    (tmp_path / "m.tflite").write_bytes(model)
    golden = write_golden(tmp_path / "golden.npz", inputs, expected)
    run = run_golden(tmp_path / "m.tflite", golden, tmp_path / "work")
    run.assert_passed()
    return expected


def graph(inputs, ops):
    """A builder with runtime ``inputs`` (name, shape, dtype, quant) and ``ops`` (op, input names,
    output (name, shape, dtype, quant), options); every op output is a model output."""
    b = LiteRTModelBuilder()
    ids = {}
    for name, shape, dtype, q in inputs:
        ids[name] = b.add_tensor(name, shape, dtype, quantization=q)
    outs = []
    for op, args, (name, shape, dtype, q), options in ops:
        ids[name] = b.add_tensor(name, shape, dtype, quantization=q)
        b.add_operator(op, [ids[a] for a in args], [ids[name]], options)
        outs.append(ids[name])
    b.set_inputs([ids[n] for n, *_ in inputs])
    b.set_outputs(outs)
    return b


UNARY_F32 = ("ABS", "NEG", "SQUARE", "EXP", "FLOOR", "SIGN", "SIN", "COS")
POSITIVE_F32 = ("SQRT", "RSQRT", "LOG")


@pytest.mark.parametrize("shape", [(7,), (2, 3, 5), (1, 4, 4, 3)])
def test_unary_float32(shape, tmp_path):
    rng = np.random.default_rng(RNG_SEED)
    x = (rng.uniform(-4, 4, shape) + rng.integers(-3, 3, shape) * 0.5).astype(np.float32)
    x.flat[0] = 2.5  # ROUND ties to even
    x.flat[-1] = -1.5
    p = (np.abs(x) + 0.25).astype(np.float32)
    ops = [(op, ["x"], (op.lower(), shape, "float32", None), None) for op in UNARY_F32]
    ops += [(op, ["p"], (op.lower(), shape, "float32", None), None) for op in POSITIVE_F32]
    b = graph([("x", shape, "float32", None), ("p", shape, "float32", None)], ops)
    check(b, [x, p], tmp_path)


@pytest.mark.parametrize("shape", [(9,), (2, 3, 5)])
def test_ceil_round_float32(shape, tmp_path):
    """CEIL and ROUND (ties to even), which only the builtin resolver of the reference has."""
    rng = np.random.default_rng(RNG_SEED)
    x = (rng.integers(-12, 12, shape) * 0.5 + rng.choice([0.0, 0.25], shape)).astype(np.float32)
    ops = [(op, ["x"], (op.lower(), shape, "float32", None), None) for op in ("CEIL", "ROUND")]
    check(graph([("x", shape, "float32", None)], ops), [x], tmp_path)


@pytest.mark.parametrize("in_q", [(0.05, 3), (0.2, -20), (0.011, -128)])
def test_unary_int8_tables(in_q, tmp_path):
    """Every int8 input byte through ABS, EXP and LOG (and SQRT/RSQRT on the non-negative ones)."""
    every = np.arange(-128, 128, dtype=np.int8)
    zp = in_q[1]
    non_negative = np.arange(zp, 128, dtype=np.int8)
    ops = [
        ("ABS", ["x"], ("abs", (256,), "int8", (0.07, -100)), None),
        ("ABS", ["x"], ("abs_same", (256,), "int8", in_q), None),
        ("EXP", ["x"], ("exp", (256,), "int8", (0.5, -128)), None),
        ("LOG", ["x"], ("log", (256,), "int8", (0.03, 40)), None),
        ("SQRT", ["p"], ("sqrt", non_negative.shape, "int8", (0.02, -128)), None),
        ("RSQRT", ["p"], ("rsqrt", non_negative.shape, "int8", (0.05, -128)), None),
    ]
    b = graph([("x", (256,), "int8", in_q), ("p", non_negative.shape, "int8", in_q)], ops)
    check(b, [every, non_negative], tmp_path)


@pytest.mark.parametrize("scales", [(0.001, 0.0005), (0.0003, 0.002)])
def test_unary_int16(scales, tmp_path):
    """int16 (zero points 0): ABS with and without rescale and without quantization, SQRT and
    the interpolated tables of RSQRT, EXP and LOG."""
    s_in, s_out = scales
    rng = np.random.default_rng(RNG_SEED)
    x = rng.integers(-32768, 32768, (4, 64)).astype(np.int16)
    x.flat[:2] = (-32768, 32767)
    p = np.abs(x.astype(np.int32)).clip(0, 32767).astype(np.int16)
    q_in, q_out = (s_in, 0), (s_out, 0)
    ops = [
        ("ABS", ["x"], ("abs", (4, 64), "int16", q_out), None),
        ("ABS", ["x"], ("abs_same", (4, 64), "int16", q_in), None),
        ("ABS", ["raw"], ("abs_raw", (4, 64), "int16", None), None),
        ("EXP", ["x"], ("exp", (4, 64), "int16", q_out), None),
        ("LOG", ["x"], ("log", (4, 64), "int16", q_out), None),
        ("SQRT", ["p"], ("sqrt", (4, 64), "int16", q_out), None),
        ("RSQRT", ["p"], ("rsqrt", (4, 64), "int16", q_out), None),
    ]
    inputs = [("x", (4, 64), "int16", q_in), ("p", (4, 64), "int16", q_in), ("raw", (4, 64), "int16", None)]
    check(graph(inputs, ops), [x, p, x], tmp_path)


def test_unary_int32_and_bool(tmp_path):
    v = np.array([0, 1, -1, 7, -300, 2**31 - 1, -(2**31) + 1, 42], dtype=np.int32).reshape(2, 4)
    flags = np.array([True, False, False, True, True, False], dtype=bool).reshape(3, 2)
    ops = [
        ("ABS", ["v"], ("abs", (2, 4), "int32", None), None),
        ("NEG", ["v"], ("neg", (2, 4), "int32", None), None),
        ("SIGN", ["v"], ("sign", (2, 4), "int32", None), None),
        ("LOGICAL_NOT", ["f"], ("not", (3, 2), "bool", None), None),
    ]
    b = graph([("v", (2, 4), "int32", None), ("f", (3, 2), "bool", None)], ops)
    check(b, [v, flags], tmp_path)


BROADCASTS = [
    ((2, 3, 4), (2, 3, 4)),
    ((2, 3, 4), (3, 1)),
    ((4,), (2, 1, 4)),
    ((1, 5), (5, 1)),
    ((3, 1, 2, 1, 2, 1), (2, 1, 2, 3)),
]


def _out_shape(a, b):
    return tuple(np.broadcast_shapes(a, b))


@pytest.mark.parametrize("shapes", BROADCASTS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_binary_float32(shapes, tmp_path):
    sa, sb = shapes
    out = _out_shape(sa, sb)
    rng = np.random.default_rng(RNG_SEED)
    a = rng.uniform(-9, 9, sa).astype(np.float32)
    d = rng.uniform(0.3, 4, sb).astype(np.float32) * rng.choice([-1, 1], sb).astype(np.float32)
    base = rng.uniform(0.1, 3, sa).astype(np.float32)
    relu = litert.DivOptionsT()
    relu.fusedActivationFunction = litert.ActivationFunctionType.RELU6
    ops = [
        ("DIV", ["a", "d"], ("div", out, "float32", None), litert.DivOptionsT()),
        ("DIV", ["a", "d"], ("div_relu6", out, "float32", None), relu),
        ("POW", ["base", "d"], ("pow", out, "float32", None), None),
        ("FLOOR_DIV", ["a", "d"], ("floor_div", out, "float32", None), None),
        ("FLOOR_MOD", ["a", "d"], ("floor_mod", out, "float32", None), None),
    ]
    if sa == sb:  # LiteRT's ATAN2 does not broadcast
        ops.append(("ATAN2", ["a", "d"], ("atan2", out, "float32", None), None))
    b = graph([("a", sa, "float32", None), ("d", sb, "float32", None), ("base", sa, "float32", None)], ops)
    check(b, [a, d, base], tmp_path)


@pytest.mark.parametrize("shapes", BROADCASTS[:3], ids=lambda s: f"{s[0]}x{s[1]}")
def test_binary_int32(shapes, tmp_path):
    sa, sb = shapes
    out = _out_shape(sa, sb)
    rng = np.random.default_rng(RNG_SEED)
    a = rng.integers(-1000, 1000, sa).astype(np.int32)
    d = (rng.integers(1, 30, sb) * rng.choice([-1, 1], sb)).astype(np.int32)
    base = rng.integers(-6, 7, sa).astype(np.int32)
    exponent = rng.integers(0, 6, sb).astype(np.int32)
    ops = [
        ("DIV", ["a", "d"], ("div", out, "int32", None), litert.DivOptionsT()),
        ("FLOOR_DIV", ["a", "d"], ("floor_div", out, "int32", None), None),
        ("FLOOR_MOD", ["a", "d"], ("floor_mod", out, "int32", None), None),
        ("POW", ["base", "e"], ("pow", out, "int32", None), None),
    ]
    b = graph(
        [
            ("a", sa, "int32", None),
            ("d", sb, "int32", None),
            ("base", sa, "int32", None),
            ("e", sb, "int32", None),
        ],
        ops,
    )
    check(b, [a, d, base, exponent], tmp_path)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("count", [2, 4])
def test_add_n(dtype, count, tmp_path):
    rng = np.random.default_rng(RNG_SEED)
    shape = (2, 3, 5)
    xs = [rng.uniform(-50, 50, shape).astype(dtype) for _ in range(count)]
    b = graph(
        [(f"x{i}", shape, dtype, None) for i in range(count)],
        [("ADD_N", [f"x{i}" for i in range(count)], ("sum", shape, dtype, None), None)],
    )
    check(b, xs, tmp_path)


COMPARISONS = ("EQUAL", "NOT_EQUAL", "GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL")


@pytest.mark.parametrize("shapes", BROADCASTS[:4], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize(
    "dtype,qa,qb",
    [
        ("float32", None, None),
        ("int32", None, None),
        ("int8", (0.05, 3), (0.1, -7)),
        ("int8", (0.02, 0), (0.02, 0)),
    ],
    ids=["float32", "int32", "int8_two_scales", "int8_one_scale"],
)
def test_comparisons(shapes, dtype, qa, qb, tmp_path):
    sa, sb = shapes
    out = _out_shape(sa, sb)
    rng = np.random.default_rng(RNG_SEED)
    if dtype == "float32":
        a = rng.integers(-3, 4, sa).astype(np.float32) * 0.5
        b_ = rng.integers(-3, 4, sb).astype(np.float32) * 0.5
    elif dtype == "int32":
        a = rng.integers(-3, 4, sa).astype(np.int32)
        b_ = rng.integers(-3, 4, sb).astype(np.int32)
    else:
        a = rng.integers(-128, 128, sa).astype(np.int8)
        b_ = rng.integers(-128, 128, sb).astype(np.int8)
    ops = [(op, ["a", "b"], (op.lower(), out, "bool", None), None) for op in COMPARISONS]
    b = graph([("a", sa, dtype, qa), ("b", sb, dtype, qb)], ops)
    check(b, [a, b_], tmp_path)


@pytest.mark.parametrize("shapes", BROADCASTS[:4], ids=lambda s: f"{s[0]}x{s[1]}")
def test_bool_logic_and_equality(shapes, tmp_path):
    sa, sb = shapes
    out = _out_shape(sa, sb)
    rng = np.random.default_rng(RNG_SEED)
    a = rng.integers(0, 2, sa).astype(bool)
    b_ = rng.integers(0, 2, sb).astype(bool)
    ops = [
        ("LOGICAL_AND", ["a", "b"], ("and", out, "bool", None), None),
        ("LOGICAL_OR", ["a", "b"], ("or", out, "bool", None), None),
        ("EQUAL", ["a", "b"], ("eq", out, "bool", None), None),
        ("NOT_EQUAL", ["a", "b"], ("ne", out, "bool", None), None),
    ]
    b = graph([("a", sa, "bool", None), ("b", sb, "bool", None)], ops)
    check(b, [a, b_], tmp_path)


SELECT_SHAPES = [
    ((2, 3, 4), (2, 3, 4), (2, 3, 4)),
    ((3, 1), (1, 4), (3, 4)),
    ((4,), (2, 1, 4), (1,)),
    ((2, 1, 1), (2, 3, 1), (1, 1, 5)),
]


@pytest.mark.parametrize("shapes", SELECT_SHAPES, ids=lambda s: "_".join("x".join(map(str, d)) for d in s))
@pytest.mark.parametrize("dtype", ["float32", "int8", "int16", "int32", "bool"])
def test_select_v2(shapes, dtype, tmp_path):
    sc, sx, sy = shapes
    out = tuple(np.broadcast_shapes(sc, sx, sy))
    rng = np.random.default_rng(RNG_SEED)
    c = rng.integers(0, 2, sc).astype(bool)
    x = rng.integers(-100, 100, sx).astype(dtype)
    y = rng.integers(-100, 100, sy).astype(dtype)
    q = (0.1, 2) if dtype == "int8" else ((0.1, 0) if dtype == "int16" else None)
    ops = [("SELECT_V2", ["c", "x", "y"], ("out", out, dtype, q), None)]
    b = graph([("c", sc, "bool", None), ("x", sx, dtype, q), ("y", sy, dtype, q)], ops)
    check(b, [c, x, y], tmp_path)


@pytest.mark.parametrize("cshape", [(2, 3, 4), (2,)], ids=["same_shape", "rank_one"])
def test_select(cshape, tmp_path):
    shape = (2, 3, 4)
    rng = np.random.default_rng(RNG_SEED)
    c = rng.integers(0, 2, cshape).astype(bool)
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    y = rng.uniform(-1, 1, shape).astype(np.float32)
    ops = [("SELECT", ["c", "x", "y"], ("out", shape, "float32", None), None)]
    b = graph(
        [("c", cshape, "bool", None), ("x", shape, "float32", None), ("y", shape, "float32", None)], ops
    )
    check(b, [c, x, y], tmp_path)


def test_resolve_lists_every_violation(tmp_path):
    """int16 SQUARE (float32 only in LiteRT), a comparison into float32 and a broadcasting ATAN2
    are refused at Resolve, each violation named in one error."""
    ops = [
        ("SQUARE", ["i"], ("sq", (4,), "int16", (0.1, 0)), None),
        ("LESS", ["a", "a"], ("lt", (4,), "float32", None), None),
        ("ATAN2", ["a", "b"], ("at", (4, 4), "float32", None), None),
    ]
    b = graph(
        [("i", (4,), "int16", (0.1, 0)), ("a", (4,), "float32", None), ("b", (4, 1), "float32", None)], ops
    )
    (tmp_path / "m.tflite").write_bytes(b.to_bytes())
    with pytest.raises(UnsupportedModelError) as info:
        convert_model(tmp_path / "m.tflite", tmp_path / "out")
    message = str(info.value)
    assert "ATAN2" in message and "does not broadcast" in message
    assert "SQUARE" in message and "int16" in message
    assert "LESS" in message and "not bool" in message
