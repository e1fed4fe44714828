"""Build-convert-run helper for the index, scatter and generator operator tests.

Index inputs must hold valid positions, which the converter's random golden inputs (the whole
integer range) would not, so each test passes its own inputs: this runs them through LiteRT's
reference interpreter, saves inputs and outputs as the module's golden data, converts the model
and runs the module's self-test (compiled under ASan/UBSan), which compares bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import run_module_test_case

from ops_builtin.support.strided_copy_model import run_litert


def const(b: LiteRTModelBuilder, name: str, values, dtype: str = "int32") -> int:
    values = np.asarray(values, dtype=np.dtype(dtype))
    return b.add_tensor(name, values.shape, dtype, data=values)


def options(cls, **fields):
    made = cls()
    for key, value in fields.items():
        setattr(made, key, value)
    return made


def run_against_reference(
    builder: LiteRTModelBuilder, samples: Sequence[Sequence[np.ndarray]], tmp_path: Path
):
    """Convert ``builder``'s model with golden data from the reference on ``samples`` and run it.

    Returns the reference outputs (per sample) and the module's host run."""
    model = builder.save(tmp_path / "model.tflite")
    content = model.read_bytes()
    outputs = [run_litert(content, list(sample)) for sample in samples]
    golden = {f"input_{i}": np.stack([s[i] for s in samples]) for i in range(len(samples[0]))}
    golden.update({f"output_{j}": np.stack([o[j] for o in outputs]) for j in range(len(outputs[0]))})
    np.savez(tmp_path / "golden.npz", **golden)
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "golden_data": str(tmp_path / "golden.npz"), "tolerance": 0.0},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    return outputs, run


QUANT = {"float32": None, "int8": (0.05, -3), "int16": (0.002, 0)}


def random_values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.float32:
        return rng.standard_normal(shape).astype(np.float32)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, size=shape).astype(dtype)


def movers_model(dtype: str, index_dtype: str):
    """Index-driven movers in ``dtype``: GATHER_ND (run-time and constant), DYNAMIC_UPDATE_SLICE,
    DILATE, FILL and REVERSE_SEQUENCE (when LiteRT has it for the dtype)."""
    q = QUANT.get(dtype)
    b = LiteRTModelBuilder()

    def t(name, shape, kind=dtype, quant=q):
        return b.add_tensor(name, shape, kind, quantization=quant if kind == dtype else None)

    x = t("x", (3, 4, 5))
    idx = b.add_tensor("idx", (2, 3, 2), index_dtype)
    g1 = t("g1", (2, 3, 5))
    b.add_operator("GATHER_ND", [x, idx], [g1])
    g2 = t("g2", (2, 4, 5))
    b.add_operator("GATHER_ND", [x, const(b, "cidx", [[2], [0]], index_dtype)], [g2])
    g3 = t("g3", (4,))
    b.add_operator(
        "GATHER_ND", [x, const(b, "full", [[0, 0, 0], [2, 3, 4], [1, 2, 3], [0, 3, 1]], index_dtype)], [g3]
    )
    upd = t("upd", (2, 2, 3))
    starts = b.add_tensor("starts", (3,), "int64" if index_dtype == "int16" else index_dtype)
    d = t("d", (3, 4, 5))
    b.add_operator("DYNAMIC_UPDATE_SLICE", [x, upd, starts], [d])
    d2 = b.add_tensor("d2", (3, 4, 5), dtype, quantization=QUANT.get(dtype))
    b.add_operator("DYNAMIC_UPDATE_SLICE", [x, upd, const(b, "cstarts", [1, 9, -4])], [d2])
    pad = t("pad", ())
    dl = t("dl", (5, 4, 13))
    b.add_operator("DILATE", [x, const(b, "dil", [2, 1, 3]), pad], [dl])
    value = t("value", ())
    f = t("f", (2, 3, 2))
    b.add_operator("FILL", [const(b, "dims", [2, 3, 2]), value], [f])
    outs, ins = [g1, g2, g3, d, d2, dl, f], [x, idx, upd, starts, pad, value]
    if dtype != "int8":  # LiteRT's REVERSE_SEQUENCE has no int8 kernel
        lengths = b.add_tensor("lengths", (5,), "int32")
        rs = t("rs", (3, 4, 5))
        b.add_operator(
            "REVERSE_SEQUENCE",
            [x, lengths],
            [rs],
            options(litert.ReverseSequenceOptionsT, seqDim=1, batchDim=2),
        )
        rs2 = t("rs2", (3, 4, 5))
        b.add_operator(
            "REVERSE_SEQUENCE",
            [x, const(b, "clen", [3, 0, 2], "int64")],
            [rs2],
            options(litert.ReverseSequenceOptionsT, seqDim=2, batchDim=0),
        )
        outs += [rs, rs2]
        ins.append(lengths)
    b.set_inputs(ins)
    b.set_outputs(outs)
    return b, len(ins)


def mover_samples(dtype: str, index_dtype: str, count: int):
    rng = np.random.default_rng(7)
    starts_dtype = np.int64 if index_dtype == "int16" else np.dtype(index_dtype)
    samples = []
    for starts, lengths in (([0, 1, 2], [0, 4, 1, 2, 3]), ([5, -2, 9], [4, 4, 0, 1, 2])):
        sample = [
            random_values(rng, (3, 4, 5), dtype),
            np.stack([rng.integers(0, 3, size=(2, 3)), rng.integers(0, 4, size=(2, 3))], axis=-1).astype(
                index_dtype
            ),
            random_values(rng, (2, 2, 3), dtype),
            np.array(starts, dtype=starts_dtype),
            random_values(rng, (), dtype),
            random_values(rng, (), dtype),
        ]
        if count > 6:
            sample.append(np.array(lengths, dtype=np.int32))
        samples.append(sample)
    return samples


def bool_movers_model(dtype, index_dtype):
    """The bool model: REVERSE_SEQUENCE has no bool kernel in LiteRT, so it is built without."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (3, 4, 5), dtype)
    idx = b.add_tensor("idx", (2, 3, 2), index_dtype)
    g1 = b.add_tensor("g1", (2, 3, 5), dtype)
    b.add_operator("GATHER_ND", [x, idx], [g1])
    g2 = b.add_tensor("g2", (2, 4, 5), dtype)
    b.add_operator("GATHER_ND", [x, const(b, "cidx", [[2], [0]], index_dtype)], [g2])
    g3 = b.add_tensor("g3", (4,), dtype)
    b.add_operator(
        "GATHER_ND", [x, const(b, "full", [[0, 0, 0], [2, 3, 4], [1, 2, 3], [0, 3, 1]], index_dtype)], [g3]
    )
    upd = b.add_tensor("upd", (2, 2, 3), dtype)
    starts = b.add_tensor("starts", (3,), index_dtype)
    d = b.add_tensor("d", (3, 4, 5), dtype)
    b.add_operator("DYNAMIC_UPDATE_SLICE", [x, upd, starts], [d])
    d2 = b.add_tensor("d2", (3, 4, 5), dtype, quantization=QUANT.get(dtype))
    b.add_operator("DYNAMIC_UPDATE_SLICE", [x, upd, const(b, "cstarts", [1, 9, -4])], [d2])
    pad = b.add_tensor("pad", (), dtype)
    dl = b.add_tensor("dl", (5, 4, 13), dtype)
    b.add_operator("DILATE", [x, const(b, "dil", [2, 1, 3]), pad], [dl])
    value = b.add_tensor("value", (), dtype)
    f = b.add_tensor("f", (2, 3, 2), dtype)
    b.add_operator("FILL", [const(b, "dims", [2, 3, 2]), value], [f])
    b.set_inputs([x, idx, upd, starts, pad, value])
    b.set_outputs([g1, g2, g3, d, d2, dl, f])
    return b


def scatter_cumsum_model(dtype: str):
    """SCATTER_ND (repeated vectors accumulate), CUMSUM on each axis with every option, ONE_HOT
    on two axes, ZEROS_LIKE and a constant-condition WHERE, in ``dtype``."""
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (2, 3, 4), dtype)
    idx = b.add_tensor("idx", (5, 2), "int32")
    upd = b.add_tensor("upd", (5, 4), dtype)
    s = b.add_tensor("s", (2, 3, 4), dtype)
    b.add_operator("SCATTER_ND", [idx, upd, const(b, "shape", [2, 3, 4])], [s])
    s1 = b.add_tensor("s1", (6, 3), dtype)
    b.add_operator(
        "SCATTER_ND",
        [
            const(b, "idx1", [[[5], [0]], [[5], [2]]]),
            b.add_tensor("u1", (2, 2, 3), dtype, data=np.arange(12).reshape(2, 2, 3).astype(dtype)),
            const(b, "shape1", [6, 3]),
        ],
        [s1],
    )
    outs = [s, s1]
    if dtype != "int8":  # LiteRT's CUMSUM and ZEROS_LIKE have no int8 kernels
        for n, (axis, exclusive, reverse) in enumerate(
            ((0, False, False), (1, True, False), (-1, False, True), (2, True, True))
        ):
            c = b.add_tensor(f"c{n}", (2, 3, 4), dtype)
            b.add_operator(
                "CUMSUM",
                [x, const(b, f"axis{n}", axis)],
                [c],
                options(litert.CumsumOptionsT, exclusive=exclusive, reverse=reverse),
            )
            outs.append(c)
        z = b.add_tensor("z", (2, 3, 4), dtype)
        b.add_operator("ZEROS_LIKE", [x], [z])
        outs.append(z)
    hot = b.add_tensor("hot", (2, 3), "int64")
    for n, axis in enumerate((-1, 0)):
        shape = (2, 3, 5) if axis == -1 else (5, 2, 3)
        o = b.add_tensor(f"o{n}", shape, dtype)
        on = b.add_tensor(f"on{n}", (), dtype, data=np.array(3 - n, dtype=dtype))
        off = b.add_tensor(f"off{n}", (), dtype, data=np.array(-1 + n, dtype=dtype))
        b.add_operator(
            "ONE_HOT",
            [hot, const(b, f"depth{n}", 5), on, off],
            [o],
            options(litert.OneHotOptionsT, axis=axis),
        )
        outs.append(o)
    cond = np.array([[True, False, True], [False, False, True]])
    w = b.add_tensor("w", (3, 2), "int64")
    b.add_operator("WHERE", [b.add_tensor("cond", cond.shape, "bool", data=cond)], [w])
    outs.append(w)
    b.set_inputs([x, idx, upd, hot])
    b.set_outputs(outs)
    return b


def scatter_samples(dtype: str):
    """Two samples for :func:`scatter_cumsum_model`: in-range scatter vectors, ONE_HOT indices
    partly outside [0, depth)."""
    rng = np.random.default_rng(3)
    samples = []
    for _ in range(2):
        idx = np.stack([rng.integers(0, 2, size=5), rng.integers(0, 3, size=5)], axis=-1).astype(np.int32)
        hot = rng.integers(-2, 7, size=(2, 3)).astype(np.int64)
        samples.append([random_values(rng, (2, 3, 4), dtype), idx, random_values(rng, (5, 4), dtype), hot])
    return samples
