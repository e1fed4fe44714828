"""SPACE_TO_DEPTH, DEPTH_TO_SPACE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, MIRROR_PAD (both modes),
REVERSE_V2, TILE and BROADCAST_TO end to end, against LiteRT's reference interpreter.

The corpus has one or two models of each with one parameter set; these builder-made models run
every operator over several shapes, block sizes, paddings, crops, axes and multiples (a TILE whose
walk needs more than six dimensions, so it is cut into several copies, among them), in float32,
int8 and int16, compiled under ASan/UBSan and compared bit for bit on random inputs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import run_module_test_case

QUANT = {"float32": None, "int8": (0.05, -3), "int16": (0.002, 0)}

VARIANTS = {
    "a": {
        "x": (2, 6, 4, 3),
        "block": 2,
        "s2b": ([2, 3], [[1, 1], [1, 1]], [[0, 1], [2, 0]]),
        "reflect": [[0, 1], [2, 3], [1, 0], [0, 2]],
        "symmetric": [[1, 2], [0, 6], [4, 4], [3, 0]],
        "axes": [1],
        "multiples": [2, 1, 3, 2],
        "small": (4, 1),
        "broadcast": (2, 3, 4, 5),
    },
    "b": {
        "x": (1, 4, 6, 2),
        "block": 2,
        "s2b": ([1, 2], [[0, 0], [1, 3]], [[0, 0], [0, 0]]),
        "reflect": [[0, 0], [3, 3], [5, 5], [1, 1]],
        "symmetric": [[0, 1], [4, 0], [0, 6], [2, 2]],
        "axes": [1, 2],
        "multiples": [3, 2, 1, 2],
        "small": (3, 1, 2),
        "broadcast": (2, 3, 4, 2),
    },
}


def _const(b: LiteRTModelBuilder, name: str, values) -> int:
    values = np.asarray(values, dtype=np.int32)
    return b.add_tensor(name, values.shape, "int32", data=values)


def _options(cls, **fields):
    options = cls()
    for key, value in fields.items():
        setattr(options, key, value)
    return options


def movers_model(dtype: str, v: dict) -> LiteRTModelBuilder:
    q = QUANT[dtype]
    b = LiteRTModelBuilder()

    def tensor(name, shape):
        return b.add_tensor(name, tuple(int(d) for d in shape), dtype, quantization=q)

    shape = np.array(v["x"])
    x, small = tensor("x", shape), tensor("small", v["small"])
    n, h, w, c = shape
    outs = []
    if dtype != "int16":  # LiteRT's SPACE_TO_DEPTH / DEPTH_TO_SPACE have no int16 kernel
        k = v["block"]
        s2d = tensor("s2d", (n, h // k, w // k, c * k * k))
        b.add_operator("SPACE_TO_DEPTH", [x], [s2d], _options(litert.SpaceToDepthOptionsT, blockSize=k))
        # DEPTH_TO_SPACE of the depth view: block k turns (H/k, W/k, C*k*k) back into (H, W, C).
        d2s = tensor("d2s", (n, h, w, c))
        b.add_operator("DEPTH_TO_SPACE", [s2d], [d2s], _options(litert.DepthToSpaceOptionsT, blockSize=k))
        outs += [s2d, d2s]
    block, pads, crops = v["s2b"]
    padded = [h + pads[0][0] + pads[0][1], w + pads[1][0] + pads[1][1]]
    s2b = tensor("s2b", (n * block[0] * block[1], padded[0] // block[0], padded[1] // block[1], c))
    b.add_operator("SPACE_TO_BATCH_ND", [x, _const(b, "block", block), _const(b, "pads", pads)], [s2b])
    b2s = tensor("b2s", (n, padded[0] - sum(crops[0]), padded[1] - sum(crops[1]), c))
    b.add_operator("BATCH_TO_SPACE_ND", [s2b, _const(b, "block2", block), _const(b, "crops", crops)], [b2s])
    outs += [s2b, b2s]
    for mode, name in (
        (litert.MirrorPadMode.REFLECT, "reflect"),
        (litert.MirrorPadMode.SYMMETRIC, "symmetric"),
    ):
        p = np.array(v[name])
        y = tensor(name, shape + p.sum(axis=1))
        b.add_operator(
            "MIRROR_PAD", [x, _const(b, f"{name}_p", p)], [y], _options(litert.MirrorPadOptionsT, mode=mode)
        )
        outs.append(y)
    r = tensor("rev", shape)
    b.add_operator("REVERSE_V2", [x, _const(b, "axes", v["axes"])], [r])
    t = tensor("tile", shape * np.array(v["multiples"]))
    b.add_operator("TILE", [x, _const(b, "multiples", v["multiples"])], [t])
    bt = tensor("bcast", v["broadcast"])
    # BROADCAST_TO's first registered version is 2.
    b.add_operator("BROADCAST_TO", [small, _const(b, "bshape", v["broadcast"])], [bt], version=2)
    b.set_inputs([x, small])
    b.set_outputs([*outs, r, t, bt])
    return b


def _convert_and_run(builder: LiteRTModelBuilder, tmp_path: Path):
    model = builder.save(tmp_path / "model.tflite")
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "samples": 2, "tolerance": 0.0},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    return run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("dtype", sorted(QUANT))
def test_block_movers_match_reference(dtype, variant, tmp_path):
    run = _convert_and_run(movers_model(dtype, VARIANTS[variant]), tmp_path)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def _single(op: str, dtype: str, in_shape, out_shape, inputs=(), options=None, quant=None, out_quant=None):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", in_shape, dtype, quantization=quant)
    y = b.add_tensor("y", out_shape, dtype, quantization=out_quant if out_quant else quant)
    b.add_operator(op, [x, *(_const(b, f"c{i}", v) for i, v in enumerate(inputs))], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b


@pytest.mark.parametrize(
    "builder, message",
    [
        (
            _single(
                "SPACE_TO_DEPTH",
                "int16",
                (1, 4, 4, 1),
                (1, 2, 2, 4),
                (),
                _options(litert.SpaceToDepthOptionsT, blockSize=2),
                (0.01, 0),
            ),
            "is int16; supported",
        ),
        (
            _single(
                "SPACE_TO_DEPTH",
                "float32",
                (1, 5, 4, 1),
                (1, 2, 2, 4),
                (),
                _options(litert.SpaceToDepthOptionsT, blockSize=2),
            ),
            "not multiples of block_size 2",
        ),
        (
            _single(
                "MIRROR_PAD",
                "float32",
                (3, 4),
                (7, 4),
                ([[2, 2], [0, 0]],),
                _options(litert.MirrorPadOptionsT, mode=litert.MirrorPadMode.SYMMETRIC),
            ),
            None,
        ),
        (
            _single(
                "MIRROR_PAD",
                "float32",
                (3, 4),
                (9, 4),
                ([[3, 3], [0, 0]],),
                _options(litert.MirrorPadOptionsT, mode=litert.MirrorPadMode.REFLECT),
            ),
            "exceeds what REFLECT allows",
        ),
        (_single("REVERSE_V2", "int8", (3, 4), (3, 4), ([1, -1],), None, (0.1, 0)), "names an axis twice"),
        (
            _single("TILE", "int8", (3, 4), (6, 4), ([2, 1],), None, (0.1, 0), (0.2, 0)),
            "quantized differently",
        ),
        (
            _single("SPACE_TO_BATCH_ND", "float32", (1, 5, 4, 1), (4, 2, 2, 1), ([2, 2], [[0, 0], [0, 0]])),
            "not a multiple of block size 2",
        ),
        (
            _single("BATCH_TO_SPACE_ND", "float32", (3, 2, 2, 1), (1, 4, 4, 1), ([2, 2], [[0, 0], [0, 0]])),
            "not a multiple of the block",
        ),
    ],
    ids=[
        "s2d_int16",
        "s2d_indivisible",
        "mirror_symmetric_edge",
        "mirror_reflect_too_far",
        "reverse_twice",
        "tile_requant",
        "s2b_indivisible",
        "b2s_batch",
    ],
)
def test_restrictions_are_enforced_at_resolve(builder, message, tmp_path):
    """Violations fail with UnsupportedModelError naming the problem; a padding exactly at the
    SYMMETRIC limit (the dimension's size) is still accepted and matches the reference."""
    if message is None:
        run = _convert_and_run(builder, tmp_path)
        assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"
        return
    with pytest.raises(UnsupportedModelError, match=message):
        _convert_and_run(builder, tmp_path)
