"""Property tests of the data-movement operators' copy plans (and DILATE's) against LiteRT's reference.

SPACE_TO_DEPTH, DEPTH_TO_SPACE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, MIRROR_PAD, REVERSE_V2,
TILE and BROADCAST_TO are conversion-time plans of ``hk_strided_copy`` calls (after an optional
fill). For random shapes and parameters each test builds a one-operator model, loads it as the
converter does, asks the operator for its plan (its Resolve checks must pass) and runs the plan
with the numpy model of the copy kernel; the result must equal the reference interpreter's
output element for element. (The C kernel itself is checked against that numpy model in
data_movement/test_strided_copy.py, and whole modules in test_block_movers.py.)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.pipeline.load import load_model
from helia_aot.registry import build_default_registry_context
from helia_aot_ops_builtin.plugin import registrations
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_builtin.support.index_model import const, options
from ops_builtin.support.strided_copy_model import run_copy, run_litert

DTYPES = st.sampled_from([("float32", None), ("int8", (0.05, -3))])
OPERATORS = {record.key: record.operator for record in registrations()}
CONTEXT = build_default_registry_context()


def _check_plan(builder: LiteRTModelBuilder, x: np.ndarray, path: Path) -> None:
    """Run the single operator's copy plan on ``x`` and compare it with the reference."""
    model_path = builder.save(path)
    expected = run_litert(model_path.read_bytes(), [x])[0]
    air = load_model(model_path, 0, CONTEXT)
    (op,) = air.operators
    operator = OPERATORS[op.op_type](op, air, None)
    assert list(operator.check()) == []
    buffers = {t.id: np.zeros(t.size, dtype=t.dtype.numpy) for t in air.tensors.values()}
    for t in air.tensors.values():
        if t.is_constant and t.data is not None:
            buffers[t.id] = np.asarray(t.data).reshape(-1).astype(t.dtype.numpy)
    buffers[air.inputs[0]] = x.reshape(-1)
    fill = operator.fill_step()
    if fill is not None:
        value = fill.value if fill.source is None else buffers[fill.source.id][:1]
        buffers[fill.target.id][:] = np.asarray(value).reshape(-1)[0]
    for step in operator.copy_steps():
        run_copy(step.walk, buffers[step.source.id], buffers[step.target.id])
    np.testing.assert_array_equal(buffers[air.outputs[0]].reshape(expected.shape), expected)


def _single(op, dtype, quant, in_shape, out_shape, inputs=(), opts=None, version=1):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", tuple(in_shape), dtype, quantization=quant)
    y = b.add_tensor("y", tuple(out_shape), dtype, quantization=quant)
    consts = [const(b, f"c{i}", v) for i, v in enumerate(inputs)]
    b.add_operator(op, [x, *consts], [y], opts, version=version)
    b.set_inputs([x])
    b.set_outputs([y])
    return b


def _input(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "float32":
        return rng.standard_normal(tuple(shape)).astype(np.float32)
    return rng.integers(-128, 128, size=tuple(shape)).astype(np.int8)


dims = st.integers(1, 4)
seeds = st.integers(0, 2**32 - 1)


@settings(max_examples=20)
@given(dt=DTYPES, n=dims, h=dims, w=dims, c=dims, k=st.integers(1, 3), seed=seeds, to_depth=st.booleans())
def test_space_depth_plans_match_reference(dt, n, h, w, c, k, seed, to_depth, tmp_path_factory):
    dtype, quant = dt
    if to_depth:
        shape, out = (n, h * k, w * k, c), (n, h, w, c * k * k)
        b = _single(
            "SPACE_TO_DEPTH", dtype, quant, shape, out, opts=options(litert.SpaceToDepthOptionsT, blockSize=k)
        )
    else:
        shape, out = (n, h, w, c * k * k), (n, h * k, w * k, c)
        b = _single(
            "DEPTH_TO_SPACE", dtype, quant, shape, out, opts=options(litert.DepthToSpaceOptionsT, blockSize=k)
        )
    _check_plan(b, _input(shape, dtype, seed), tmp_path_factory.mktemp("m") / "m.tflite")


@settings(max_examples=20)
@given(dt=DTYPES, n=dims, c=dims, data=st.data(), seed=seeds)
def test_space_batch_plans_match_reference(dt, n, c, data, seed, tmp_path_factory):
    dtype, quant = dt
    block = [data.draw(st.integers(1, 3)) for _ in range(2)]
    # SPACE_TO_BATCH_ND: padded spatial sizes divisible by the block.
    spatial = [data.draw(st.integers(1, 5)) for _ in range(2)]
    pads = []
    for size, k in zip(spatial, block):
        before = data.draw(st.integers(0, 2))
        total = -(-(size + before) // k) * k + k * data.draw(st.integers(0, 1))
        pads.append([before, total - size - before])
    padded = [s + sum(p) for s, p in zip(spatial, pads)]
    out = (n * block[0] * block[1], padded[0] // block[0], padded[1] // block[1], c)
    b = _single("SPACE_TO_BATCH_ND", dtype, quant, (n, *spatial, c), out, [block, pads])
    _check_plan(b, _input((n, *spatial, c), dtype, seed), tmp_path_factory.mktemp("m") / "m.tflite")
    # BATCH_TO_SPACE_ND: crops leave at least one row and column.
    small = [data.draw(st.integers(1, 3)) for _ in range(2)]
    crops = []
    for size, k in zip(small, block):
        full = size * k
        before = data.draw(st.integers(0, full - 1))
        crops.append([before, data.draw(st.integers(0, full - 1 - before))])
    shape = (n * block[0] * block[1], *small, c)
    out = (n, small[0] * block[0] - sum(crops[0]), small[1] * block[1] - sum(crops[1]), c)
    b = _single("BATCH_TO_SPACE_ND", dtype, quant, shape, out, [block, crops])
    _check_plan(b, _input(shape, dtype, seed + 1), tmp_path_factory.mktemp("m") / "m.tflite")


@settings(max_examples=20)
@given(dt=DTYPES, shape=st.lists(dims, min_size=1, max_size=4), data=st.data(), seed=seeds)
def test_mirror_pad_and_reverse_plans_match_reference(dt, shape, data, seed, tmp_path_factory):
    dtype, quant = dt
    symmetric = data.draw(st.booleans())
    offset = 0 if symmetric else 1
    pads = [[data.draw(st.integers(0, n - offset)) for _ in range(2)] for n in shape]
    out = [n + a + b for n, (a, b) in zip(shape, pads)]
    mode = litert.MirrorPadMode.SYMMETRIC if symmetric else litert.MirrorPadMode.REFLECT
    b = _single("MIRROR_PAD", dtype, quant, shape, out, [pads], options(litert.MirrorPadOptionsT, mode=mode))
    _check_plan(b, _input(shape, dtype, seed), tmp_path_factory.mktemp("m") / "m.tflite")
    first = data.draw(st.integers(0, len(shape) - 1))
    axes = list(range(first, data.draw(st.integers(first, len(shape) - 1)) + 1))
    b = _single("REVERSE_V2", dtype, quant, shape, shape, [axes])
    _check_plan(b, _input(shape, dtype, seed + 1), tmp_path_factory.mktemp("m") / "m.tflite")


@settings(max_examples=20)
@given(dt=DTYPES, shape=st.lists(dims, min_size=1, max_size=4), data=st.data(), seed=seeds)
def test_tile_and_broadcast_plans_match_reference(dt, shape, data, seed, tmp_path_factory):
    dtype, quant = dt
    multiples = [data.draw(st.integers(1, 3)) for _ in shape]
    out = [n * m for n, m in zip(shape, multiples)]
    b = _single("TILE", dtype, quant, shape, out, [multiples])
    _check_plan(b, _input(shape, dtype, seed), tmp_path_factory.mktemp("m") / "m.tflite")
    lead = [data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 2)))]
    small = [n if data.draw(st.booleans()) else 1 for n in shape]
    target = [*lead, *[n if s == 1 and data.draw(st.booleans()) else s for n, s in zip(out, small)]]
    b = _single("BROADCAST_TO", dtype, quant, small, target, [target], version=2)
    _check_plan(b, _input(small, dtype, seed + 1), tmp_path_factory.mktemp("m") / "m.tflite")


@settings(max_examples=20)
@given(dt=DTYPES, shape=st.lists(dims, min_size=1, max_size=4), data=st.data(), seed=seeds)
def test_dilate_plans_match_reference(dt, shape, data, seed, tmp_path_factory):
    dtype, quant = dt
    dilations = [data.draw(st.integers(1, 3)) for _ in shape]
    out = [(n - 1) * d + 1 for n, d in zip(shape, dilations)]
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", tuple(shape), dtype, quantization=quant)
    pad_value = np.array(data.draw(st.integers(-9, 9)), dtype=dtype)
    pad = b.add_tensor("pad", (), dtype, data=pad_value, quantization=quant)
    y = b.add_tensor("y", tuple(out), dtype, quantization=quant)
    b.add_operator("DILATE", [x, const(b, "dilations", dilations), pad], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    _check_plan(b, _input(shape, dtype, seed), tmp_path_factory.mktemp("m") / "m.tflite")
