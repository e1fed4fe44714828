"""GATHER_ND, SCATTER_ND, DYNAMIC_UPDATE_SLICE, REVERSE_SEQUENCE, WHERE, FILL, ZEROS_LIKE, DILATE,
ONE_HOT and CUMSUM end to end, against LiteRT's reference interpreter.

The shared corpus has none of these but CUMSUM and ONE_HOT, so builder-made models run each one
over several shapes, dtypes and parameters: run-time and constant index tensors, int16/int32/int64
indices, clamped DYNAMIC_UPDATE_SLICE starts, zero and full REVERSE_SEQUENCE lengths, ONE_HOT
indices outside the depth, exclusive/reverse CUMSUM on every axis, FILL from a run-time value.
Each model is compiled under ASan/UBSan and compared bit for bit on chosen inputs (index inputs
must be in range, which random golden inputs would not be); refusals are checked at Resolve.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder

from ops_builtin.support.index_model import (
    bool_movers_model,
    const,
    mover_samples,
    movers_model,
    options,
    run_against_reference,
    scatter_cumsum_model,
    scatter_samples,
)


@pytest.mark.parametrize(
    "dtype, index_dtype",
    [("float32", "int32"), ("int8", "int64"), ("int16", "int16"), ("int32", "int32"), ("bool", "int64")],
)
def test_index_movers_match_reference(dtype, index_dtype, tmp_path):
    builder, count = movers_model(dtype, index_dtype)
    if dtype == "bool":
        builder = bool_movers_model(dtype, index_dtype)
        count = 6
    _, run = run_against_reference(builder, mover_samples(dtype, index_dtype, count), tmp_path)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "int8"])
def test_scatter_cumsum_one_hot_match_reference(dtype, tmp_path):
    _, run = run_against_reference(scatter_cumsum_model(dtype), scatter_samples(dtype), tmp_path)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def _convert(builder: LiteRTModelBuilder, tmp_path):
    model = builder.save(tmp_path / "model.tflite")
    config = {"model": {"path": str(model)}, "module": {"path": str(tmp_path / "out"), "name": "m"}}
    return AotConverter(ConvertArgs.model_validate(config)).convert()


def test_constant_indices_out_of_range_are_refused_with_every_problem(tmp_path):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (3, 4), "float32")
    g = b.add_tensor("g", (2,), "float32")
    b.add_operator("GATHER_ND", [x, const(b, "i", [[0, 1], [2, 4]])], [g])
    r = b.add_tensor("r", (3, 4), "float32")
    b.add_operator(
        "REVERSE_SEQUENCE",
        [x, const(b, "l", [1, 5, 0])],
        [r],
        options(litert.ReverseSequenceOptionsT, seqDim=1, batchDim=0),
    )
    b.set_inputs([x])
    b.set_outputs([g, r])
    with pytest.raises(
        UnsupportedModelError, match=r"outside the dimensions \[3, 4\] \(the first: \[2, 4\]\)"
    ):
        _convert(b, tmp_path)


def test_constant_indices_become_strided_copies_and_run_time_ones_the_kernel(tmp_path):
    """Constant index tensors need no hk_index kernel: the module carries a copy table instead."""
    for name, run_time in (("constant", False), ("run_time", True)):
        b = LiteRTModelBuilder()
        x = b.add_tensor("x", (4, 3), "float32")
        idx = b.add_tensor("i", (2, 1), "int32") if run_time else const(b, "i", [[3], [0]])
        y = b.add_tensor("y", (2, 3), "float32")
        b.add_operator("GATHER_ND", [x, idx], [y])
        b.set_inputs([x, idx] if run_time else [x])
        b.set_outputs([y])
        (tmp_path / name).mkdir()
        result = _convert(b, tmp_path / name)
        kernels = {p.name for p in Path(result.output).rglob("*_hk_*.c")}
        # hk_index builds on hk_copy, so a run-time gather carries both.
        assert kernels == ({"aot_hk_index.c", "aot_hk_copy.c"} if run_time else {"aot_hk_copy.c"})
