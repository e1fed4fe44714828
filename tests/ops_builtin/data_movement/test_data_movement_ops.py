"""The data-movement operators end to end: small models built here, converted, compiled under ASan/UBSan and
run against the LiteRT reference interpreter's outputs on random inputs.

Each model packs many operators (and the variants the corpus lacks: SPLIT_V, PACK, SLICE with -1,
STRIDED_SLICE ellipsis / new-axis / shrink / negative strides, PADV2 with a run-time pad value,
CONCATENATION of a constant, GATHER with batch_dims and int64 indices, int64 ARG_MIN, int16
resizes, an aliased RESHAPE between scratch tensors) so a few module builds cover them all.
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


def _const(b: LiteRTModelBuilder, name: str, values, dtype="int32") -> int:
    values = np.asarray(values)
    return b.add_tensor(name, values.shape, dtype, data=values)


def _options(cls, **fields):
    options = cls()
    for key, value in fields.items():
        setattr(options, key, value)
    return options


def _strided_slice(b, x, out_shape, begin, end, strides, name, dtype="float32", quant=None, **masks):
    y = b.add_tensor(name, out_shape, dtype, quantization=quant)
    options = _options(litert.StridedSliceOptionsT, **masks)
    b.add_operator(
        "STRIDED_SLICE",
        [x, _const(b, f"{name}_b", begin), _const(b, f"{name}_e", end), _const(b, f"{name}_s", strides)],
        [y],
        options,
    )
    return y


def float_layout_model() -> LiteRTModelBuilder:
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (2, 3, 4, 5), "float32")
    v = b.add_tensor("v", (1,), "float32")
    t1 = b.add_tensor("t1", (2, 4, 5, 3), "float32")
    b.add_operator("TRANSPOSE", [x, _const(b, "perm", [0, 2, 3, 1])], [t1])
    t2 = b.add_tensor("t2", (8, 15), "float32")
    b.add_operator(
        "RESHAPE", [t1, _const(b, "shape", [8, 15])], [t2], _options(litert.ReshapeOptionsT, newShape=[8, 15])
    )
    a, bb, c = (b.add_tensor(n, (8, w), "float32") for n, w in (("a", 4), ("b", 5), ("c", 6)))
    b.add_operator(
        "SPLIT_V",
        [t2, _const(b, "sizes", [4, -1, 6]), _const(b, "axis", 1)],
        [a, bb, c],
        _options(litert.SplitVOptionsT, numSplits=3),
    )
    p = b.add_tensor("p", (8, 5, 2), "float32")
    b.add_operator("PACK", [bb, bb], [p], _options(litert.PackOptionsT, valuesCount=2, axis=-1))
    u0, u1 = b.add_tensor("u0", (8, 5), "float32"), b.add_tensor("u1", (8, 5), "float32")
    b.add_operator("UNPACK", [p], [u0, u1], _options(litert.UnpackOptionsT, num=2, axis=2))
    e = b.add_tensor("e", (8, 5, 1), "float32")
    b.add_operator("EXPAND_DIMS", [u0, _const(b, "edim", -1)], [e])
    sq = b.add_tensor("sq", (8, 5), "float32")
    b.add_operator("SQUEEZE", [e], [sq], _options(litert.SqueezeOptionsT, squeezeDims=[2]))
    pd = b.add_tensor("pd", (9, 11), "float32")
    b.add_operator("PAD", [c, _const(b, "pads", [[1, 0], [2, 3]])], [pd])
    pv = b.add_tensor("pv", (9, 6), "float32")
    b.add_operator("PADV2", [a, _const(b, "pads2", [[0, 1], [1, 1]]), v], [pv])
    k = b.add_tensor("k", (8, 2), "float32", data=np.arange(16, dtype=np.float32) - 7.5)
    cc = b.add_tensor("cc", (8, 12), "float32")
    b.add_operator("CONCATENATION", [a, k, c], [cc], _options(litert.ConcatenationOptionsT, axis=1))
    sl = b.add_tensor("sl", (1, 2, 3, 3), "float32")
    b.add_operator("SLICE", [x, _const(b, "sb", [1, 0, 1, 2]), _const(b, "ss", [-1, 2, -1, 3])], [sl])
    s1 = _strided_slice(b, x, (2, 3, 2, 5), [0, 2, -1], [0, 0, 0], [1, -1, -2], "s1", beginMask=1, endMask=7)
    s2 = _strided_slice(b, x, (2, 3, 4), [0, 1], [0, 2], [1, 1], "s2", ellipsisMask=1, shrinkAxisMask=2)
    s3 = _strided_slice(b, x, (1, 2, 3, 4, 5), [0, 0], [0, 0], [1, 1], "s3", newAxisMask=1, ellipsisMask=2)
    b.set_inputs([x, v])
    b.set_outputs([pd, pv, cc, sq, u1, sl, s1, s2, s3])
    return b


def int8_model() -> LiteRTModelBuilder:
    q = (0.05, 3)
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (1, 6, 7, 4), "int8", quantization=q)
    r1 = b.add_tensor("r1", (1, 11, 13, 4), "int8", quantization=q)
    b.add_operator(
        "RESIZE_NEAREST_NEIGHBOR",
        [x, _const(b, "size1", [11, 13])],
        [r1],
        _options(litert.ResizeNearestNeighborOptionsT, alignCorners=True, halfPixelCenters=True),
    )
    r2 = b.add_tensor("r2", (1, 4, 9, 4), "int8", quantization=q)
    b.add_operator(
        "RESIZE_BILINEAR",
        [x, _const(b, "size2", [4, 9])],
        [r2],
        _options(litert.ResizeBilinearOptionsT, alignCorners=True),
    )
    am = b.add_tensor("am", (1, 7, 4), "int64")
    b.add_operator(
        "ARG_MIN",
        [x, _const(b, "ax1", [1])],
        [am],
        _options(litert.ArgMinOptionsT, outputType=litert.TensorType.INT64),
    )
    ax = b.add_tensor("ax", (1, 6, 7), "int32")
    b.add_operator(
        "ARG_MAX",
        [x, _const(b, "ax3", [-1])],
        [ax],
        _options(litert.ArgMaxOptionsT, outputType=litert.TensorType.INT32),
    )
    g = b.add_tensor("g", (1, 6, 3, 4), "int8", quantization=q)
    b.add_operator(
        "GATHER",
        [x, _const(b, "idx", [[6, 0, 3]], "int64")],
        [g],
        _options(litert.GatherOptionsT, axis=2, batchDims=1),
    )
    t = b.add_tensor("t", (4, 6, 7, 1), "int8", quantization=q)
    b.add_operator("TRANSPOSE", [x, _const(b, "perm", [3, 1, 2, 0])], [t])
    pd = b.add_tensor("pd", (4, 8, 7, 2), "int8", quantization=q)
    b.add_operator("PAD", [t, _const(b, "pads", [[0, 0], [2, 0], [0, 0], [0, 1]])], [pd])
    b.set_inputs([x])
    b.set_outputs([r1, r2, am, ax, g, pd])
    return b


def int16_model() -> LiteRTModelBuilder:
    q = (0.001, 0)
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (2, 5, 3, 3), "int16", quantization=q)
    r1 = b.add_tensor("r1", (2, 8, 7, 3), "int16", quantization=q)
    b.add_operator(
        "RESIZE_BILINEAR",
        [x, _const(b, "size1", [8, 7])],
        [r1],
        _options(litert.ResizeBilinearOptionsT, halfPixelCenters=True),
    )
    r2 = b.add_tensor("r2", (2, 3, 2, 3), "int16", quantization=q)
    b.add_operator(
        "RESIZE_NEAREST_NEIGHBOR",
        [x, _const(b, "size2", [3, 2])],
        [r2],
        _options(litert.ResizeNearestNeighborOptionsT),
    )
    cc = b.add_tensor("cc", (2, 5, 3, 6), "int16", quantization=q)
    b.add_operator("CONCATENATION", [x, x], [cc], _options(litert.ConcatenationOptionsT, axis=-1))
    s = _strided_slice(
        b,
        cc,
        (2, 2, 3),
        [0, 4, 0, 5],
        [2, 0, 3, 6],
        [1, -2, 1, 1],
        "s",
        dtype="int16",
        quant=q,
        shrinkAxisMask=8,
    )
    b.set_inputs([x])
    b.set_outputs([r1, r2, s])
    return b


def _convert_and_run(builder: LiteRTModelBuilder, tmp_path: Path, tolerance: float = 0.0):
    model = builder.save(tmp_path / "model.tflite")
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "samples": 2, "tolerance": tolerance},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    return run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)


@pytest.mark.parametrize(
    "make, tolerance",
    [(float_layout_model, 0.0), (int8_model, 0.0), (int16_model, 0.0)],
    ids=["float_layout", "int8", "int16"],
)
def test_k3_operators_match_reference(make, tolerance, tmp_path):
    run = _convert_and_run(make(), tmp_path, tolerance)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def test_quantization_mismatch_is_refused_with_the_restriction(tmp_path):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (2, 3), "int8", quantization=(0.1, 0))
    y = b.add_tensor("y", (3, 2), "int8", quantization=(0.2, 0))
    b.add_operator("TRANSPOSE", [x, _const(b, "perm", [1, 0])], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    with pytest.raises(UnsupportedModelError, match="quantized differently"):
        _convert_and_run(b, tmp_path)
