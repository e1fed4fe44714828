"""IF and WHILE models built with the core's LiteRT builder, for the control-flow tests.

Every model's branch or trip count depends on its input, so a module that ignored the condition,
ran a fixed number of iterations or let a loop tensor share bytes with another would give other
outputs than the reference interpreter on some of the inputs the tests feed it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.interpreters import create_interpreter
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import run_module_test_case

Q8 = (0.05, 0)
"""int8 quantization of the loop values: [-6.4, 6.35] in steps of 0.05."""


def _f32(b: LiteRTModelBuilder, name: str, shape=(1, 4), value=None) -> int:
    data = None if value is None else np.full(shape, value, np.float32)
    return b.add_tensor(name, shape, "float32", data=data)


def _reduce(b: LiteRTModelBuilder, kind: str, x: int, rank: int, dtype="float32", q=None) -> int:
    axes = b.add_tensor(f"{kind}_axes", (rank,), "int32", data=np.arange(rank, dtype=np.int32))
    out = b.add_tensor(f"{kind}_out", (), dtype, quantization=q)
    b.add_operator(kind, [x, axes], [out], litert.ReducerOptionsT())
    return out


def _while(
    b: LiteRTModelBuilder, inputs, outputs, cond: LiteRTModelBuilder, body: LiteRTModelBuilder
) -> None:
    options = litert.WhileOptionsT()
    options.condSubgraphIndex, options.bodySubgraphIndex = cond.index, body.index
    b.add_operator("WHILE", inputs, outputs, options)


def _growth_cond(cond: LiteRTModelBuilder, limit: float) -> None:
    """cond(x, n): min(x) < limit."""
    x, n = _f32(cond, "x"), _f32(cond, "n", (1,))
    top = _reduce(cond, "REDUCE_MIN", x, 2)
    lim = cond.add_tensor("limit", (), "float32", data=np.float32(limit))
    go = cond.add_tensor("go", (), "bool")
    cond.add_operator("LESS", [top, lim], [go])
    cond.set_inputs([x, n])
    cond.set_outputs([go])


def _growth_body(body: LiteRTModelBuilder) -> None:
    """body(x, n): (x * 1.25 + 0.5, n + 1)."""
    x, n = _f32(body, "x"), _f32(body, "n", (1,))
    scaled, shifted, counted = _f32(body, "scaled"), _f32(body, "shifted"), _f32(body, "counted", (1,))
    body.add_operator("MUL", [x, _f32(body, "gain", value=1.25)], [scaled], litert.MulOptionsT())
    body.add_operator("ADD", [scaled, _f32(body, "offset", value=0.5)], [shifted], litert.AddOptionsT())
    body.add_operator("ADD", [n, _f32(body, "one", (1,), 1.0)], [counted], litert.AddOptionsT())
    body.set_inputs([x, n])
    body.set_outputs([shifted, counted])


def while_float32(path: Path) -> Path:
    """Grows x until min(x) reaches 4; returns the final x and the number of iterations.

    The input is scaled by 1.5 first, so from inputs in [-1, 1] the loop runs 3 to 14 times (more
    the lower min(x) starts).
    """
    b = LiteRTModelBuilder()
    x = _f32(b, "x")
    n0 = _f32(b, "n0", (1,), 0.0)
    y, n = _f32(b, "y"), _f32(b, "n", (1,))
    pre = _f32(b, "pre")
    b.add_operator("MUL", [x, _f32(b, "gain", value=1.5)], [pre], litert.MulOptionsT())
    cond, body = b.add_subgraph("cond"), b.add_subgraph("body")
    _growth_cond(cond, 4.0)
    _growth_body(body)
    _while(b, [pre, n0], [y, n], cond, body)
    b.set_inputs([x])
    b.set_outputs([y, n])
    return b.save(path)


def while_int8(path: Path) -> Path:
    """int8 x [1, 3]: subtract 0.5 (saturating) while max(x) > -2, counting the steps in int8.

    Over the whole int8 input range the loop runs 0 to 17 times; the counter starts from a
    constant loop input.
    """
    b = LiteRTModelBuilder()
    shape = (1, 3)
    x = b.add_tensor("x", shape, "int8", quantization=Q8)
    c0 = b.add_tensor("c0", (1,), "int8", data=np.zeros(1, np.int8), quantization=(1.0, 0))
    y = b.add_tensor("y", shape, "int8", quantization=Q8)
    c = b.add_tensor("c", (1,), "int8", quantization=(1.0, 0))

    cond = b.add_subgraph("cond")
    cx = cond.add_tensor("x", shape, "int8", quantization=Q8)
    cc = cond.add_tensor("c", (1,), "int8", quantization=(1.0, 0))
    top = _reduce(cond, "REDUCE_MAX", cx, 2, "int8", Q8)
    floor = cond.add_tensor("floor", (), "int8", data=np.int8(-40), quantization=Q8)
    go = cond.add_tensor("go", (), "bool")
    cond.add_operator("GREATER", [top, floor], [go])
    cond.set_inputs([cx, cc])
    cond.set_outputs([go])

    body = b.add_subgraph("body")
    bx = body.add_tensor("x", shape, "int8", quantization=Q8)
    bc = body.add_tensor("c", (1,), "int8", quantization=(1.0, 0))
    step = body.add_tensor("step", (1,), "int8", data=np.int8(10), quantization=Q8)
    one = body.add_tensor("one", (1,), "int8", data=np.int8(1), quantization=(1.0, 0))
    nx = body.add_tensor("next_x", shape, "int8", quantization=Q8)
    nc = body.add_tensor("next_c", (1,), "int8", quantization=(1.0, 0))
    body.add_operator("SUB", [bx, step], [nx], litert.SubOptionsT())
    body.add_operator("ADD", [bc, one], [nc], litert.AddOptionsT())
    body.set_inputs([bx, bc])
    body.set_outputs([nx, nc])

    _while(b, [x, c0], [y, c], cond, body)
    b.set_inputs([x])
    b.set_outputs([y, c])
    return b.save(path)


def _if(b: LiteRTModelBuilder, inputs, outputs, then: LiteRTModelBuilder, other: LiteRTModelBuilder) -> None:
    options = litert.IfOptionsT()
    options.thenSubgraphIndex, options.elseSubgraphIndex = then.index, other.index
    b.add_operator("IF", inputs, outputs, options)


def if_int8(path: Path) -> Path:
    """int8 x [1, 2]: when max(x) > 0, 4x (saturating) and 2x from the then branch, otherwise
    x - 2 and x from the else branch (a value passed straight through). Each branch has a tensor
    of its own between its operators."""
    b = LiteRTModelBuilder()
    shape = (1, 2)
    x = b.add_tensor("x", shape, "int8", quantization=Q8)
    top = _reduce(b, "REDUCE_MAX", x, 2, "int8", Q8)
    zero = b.add_tensor("zero", (), "int8", data=np.int8(0), quantization=Q8)
    flag = b.add_tensor("flag", (), "bool")
    b.add_operator("GREATER", [top, zero], [flag])
    y = b.add_tensor("y", shape, "int8", quantization=Q8)
    z = b.add_tensor("z", shape, "int8", quantization=Q8)

    then = b.add_subgraph("then")
    tx = then.add_tensor("x", shape, "int8", quantization=Q8)
    ty = then.add_tensor("y", shape, "int8", quantization=Q8)
    tz = then.add_tensor("z", shape, "int8", quantization=Q8)
    two = then.add_tensor("two", (1,), "int8", data=np.int8(40), quantization=Q8)
    twice = then.add_tensor("twice", shape, "int8", quantization=Q8)
    then.add_operator("ADD", [tx, tx], [twice], litert.AddOptionsT())
    then.add_operator("ADD", [twice, twice], [ty], litert.AddOptionsT())
    then.add_operator("MUL", [tx, two], [tz], litert.MulOptionsT())
    then.set_inputs([tx])
    then.set_outputs([ty, tz])

    other = b.add_subgraph("else")
    ex = other.add_tensor("x", shape, "int8", quantization=Q8)
    ey = other.add_tensor("y", shape, "int8", quantization=Q8)
    one = other.add_tensor("one", (1,), "int8", data=np.int8(20), quantization=Q8)
    less = other.add_tensor("less", shape, "int8", quantization=Q8)
    other.add_operator("SUB", [ex, one], [less], litert.SubOptionsT())
    other.add_operator("SUB", [less, one], [ey], litert.SubOptionsT())
    other.set_inputs([ex])
    other.set_outputs([ey, ex])

    _if(b, [flag, x], [y, z], then, other)
    b.set_inputs([x])
    b.set_outputs([y, z])
    return b.save(path)


def nested_while_float32(path: Path) -> Path:
    """Two nested loops: for i in 0..k-1 (k = 4 * min(x) + 6, so 2 to 10 from the input), the
    inner loop adds x to acc i times; returns acc and i. The outer body also runs an IF that
    halves acc when its sum exceeds 8, so a branch runs inside a loop too."""
    b = LiteRTModelBuilder()
    x = _f32(b, "x")
    i0, acc0 = _f32(b, "i0", (1,), 0.0), _f32(b, "acc0", value=0.0)
    acc_out, x_out = _f32(b, "acc"), _f32(b, "x_out")
    i_out = b.add_tensor("i_out", (1,), "float32")

    outer_cond = b.add_subgraph("outer_cond")
    oc_i, oc_acc, oc_x = _f32(outer_cond, "i", (1,)), _f32(outer_cond, "acc"), _f32(outer_cond, "x")
    top = _reduce(outer_cond, "REDUCE_MIN", oc_x, 2)
    scaled = outer_cond.add_tensor("scaled", (), "float32")
    outer_cond.add_operator(
        "MUL",
        [top, outer_cond.add_tensor("four", (), "float32", data=np.float32(4))],
        [scaled],
        litert.MulOptionsT(),
    )
    k = outer_cond.add_tensor("k", (), "float32")
    outer_cond.add_operator(
        "ADD",
        [scaled, outer_cond.add_tensor("base", (), "float32", data=np.float32(6))],
        [k],
        litert.AddOptionsT(),
    )
    go = outer_cond.add_tensor("go", (1,), "bool")
    outer_cond.add_operator("LESS", [oc_i, k], [go])
    outer_cond.set_inputs([oc_i, oc_acc, oc_x])
    outer_cond.set_outputs([go])

    inner_cond = b.add_subgraph("inner_cond")
    ic = [
        _f32(inner_cond, "j", (1,)),
        _f32(inner_cond, "acc"),
        _f32(inner_cond, "x"),
        _f32(inner_cond, "i", (1,)),
    ]
    more = inner_cond.add_tensor("more", (1,), "bool")
    inner_cond.add_operator("LESS", [ic[0], ic[3]], [more])
    inner_cond.set_inputs(ic)
    inner_cond.set_outputs([more])

    inner_body = b.add_subgraph("inner_body")
    j, acc, xx, ii = (
        _f32(inner_body, "j", (1,)),
        _f32(inner_body, "acc"),
        _f32(inner_body, "x"),
        _f32(inner_body, "i", (1,)),
    )
    j1, acc1 = _f32(inner_body, "j1", (1,)), _f32(inner_body, "acc1")
    inner_body.add_operator("ADD", [j, _f32(inner_body, "one", (1,), 1.0)], [j1], litert.AddOptionsT())
    inner_body.add_operator("ADD", [acc, xx], [acc1], litert.AddOptionsT())
    inner_body.set_inputs([j, acc, xx, ii])
    inner_body.set_outputs([j1, acc1, xx, ii])

    halve = b.add_subgraph("halve")
    h_in, h_out = _f32(halve, "acc"), _f32(halve, "half")
    halve.add_operator("MUL", [h_in, _f32(halve, "k", value=0.5)], [h_out], litert.MulOptionsT())
    halve.set_inputs([h_in])
    halve.set_outputs([h_out])
    keep = b.add_subgraph("keep")
    k_in = _f32(keep, "acc")
    keep.set_inputs([k_in])
    keep.set_outputs([k_in])

    outer_body = b.add_subgraph("outer_body")
    ob_i, ob_acc, ob_x = _f32(outer_body, "i", (1,)), _f32(outer_body, "acc"), _f32(outer_body, "x")
    j0 = _f32(outer_body, "j0", (1,), 0.0)
    j_end, acc_in, x_end, i_end = (
        _f32(outer_body, "j_end", (1,)),
        _f32(outer_body, "acc_inner"),
        _f32(outer_body, "x_end"),
        _f32(outer_body, "i_end", (1,)),
    )
    _while(outer_body, [j0, ob_acc, ob_x, ob_i], [j_end, acc_in, x_end, i_end], inner_cond, inner_body)
    total = _reduce(outer_body, "SUM", acc_in, 2)
    big = outer_body.add_tensor("big", (), "bool")
    outer_body.add_operator(
        "GREATER", [total, outer_body.add_tensor("eight", (), "float32", data=np.float32(8))], [big]
    )
    acc_next = _f32(outer_body, "acc_next")
    _if(outer_body, [big, acc_in], [acc_next], halve, keep)
    i_next = _f32(outer_body, "i_next", (1,))
    outer_body.add_operator("ADD", [ob_i, _f32(outer_body, "one", (1,), 1.0)], [i_next], litert.AddOptionsT())
    outer_body.set_inputs([ob_i, ob_acc, ob_x])
    outer_body.set_outputs([i_next, acc_next, ob_x])

    _while(b, [i0, acc0, x], [i_out, acc_out, x_out], outer_cond, outer_body)
    b.set_inputs([x])
    b.set_outputs([acc_out, i_out])
    return b.save(path)


MODELS = {
    "while_float32": while_float32,
    "while_int8": while_int8,
    "if_int8": if_int8,
    "nested_while_float32": nested_while_float32,
}
"""Name -> builder writing the model to a path."""


def sample_inputs(path: Path, seed: int, samples: int) -> np.ndarray:
    """``samples`` random inputs for the model's one input: the whole int8 range, or [-1, 1]."""
    detail = create_interpreter(path)._interpreter.get_input_details()[0]
    rng = np.random.default_rng(seed)
    shape = (samples, *detail["shape"])
    if detail["dtype"] == np.int8:
        return rng.integers(-128, 128, size=shape, dtype=np.int8)
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def write_golden(path: Path, seed: int, samples: int) -> tuple[Path, list[np.ndarray]]:
    """The reference interpreter's outputs for ``samples`` random inputs, written next to the
    model as the module's golden data (``test.golden_data``); returns the file and the outputs."""
    interpreter = create_interpreter(path)
    inputs = sample_inputs(path, seed, samples)
    runs = [interpreter.run([sample]) for sample in inputs]
    outputs = [np.stack([run[k] for run in runs]) for k in range(len(runs[0]))]
    golden = path.with_suffix(".npz")
    np.savez(golden, input_0=inputs, **{f"output_{k}": v for k, v in enumerate(outputs)})
    return golden, outputs


SAMPLES = 12
"""Inputs per model: enough that every branch and several trip counts occur."""

VARIES = {
    "while_float32": (1, 3),  # the iteration count
    "while_int8": (1, 4),  # the iteration count
    "if_int8": (1, SAMPLES),  # z is 2x in one branch and x in the other
    "nested_while_float32": (1, 3),  # the outer iteration count
}
"""What shows the branch or trip count varied over the samples: (output position, minimum number
of distinct values it takes)."""


def check_against_reference(name: str, tmp_path: Path) -> None:
    """Convert the model ``name`` of :data:`MODELS` with the reference's outputs on ``SAMPLES``
    random inputs as golden data (which must exercise the control flow, :data:`VARIES`), build it
    under ASan/UBSan and run its self test: every sample exact."""
    path = MODELS[name](tmp_path / f"{name}.tflite")
    golden, outputs = write_golden(path, seed=len(name), samples=SAMPLES)
    position, wanted = VARIES[name]
    distinct = len({row.tobytes() for row in outputs[position]})
    assert distinct >= wanted, "the inputs do not exercise the control flow"
    config = {
        "model": {"path": str(path)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "tolerance": 0.0, "golden_data": str(golden)},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"
    assert f"PASS ({SAMPLES} sample(s)" in run.stdout
