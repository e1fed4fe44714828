"""Goal size names each convolution's entry of the hk_conv_unfolded family from its geometry.

Why: the family's general entry chooses its Helium loop per call, so a module calling it links
every loop; naming the entry a layer's geometry takes lets --gc-sections drop the others (KWS's
size module: 2.3 KB less code, the margin under the latency module that
tests/e2e/test_knobs_act.py pins). Each entry gives the same integers for any call
(tests/ops_builtin/conv/test_conv_unfolded*_hypothesis.py run every entry on every case);
here the choice itself, per geometry and per module, from plans only (no build).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot import ConvertArgs
from helia_aot.pipeline.load import load_model
from helia_aot.pipeline.resolve import resolve_operators
from helia_aot.pipeline.transform import run_transforms
from helia_aot.platforms import resolve_platform
from helia_aot.registry import build_default_registry_context
from helia_aot_ops_builtin.conv import unfolded_entries
from helia_aot_ops_builtin.conv.unfolded_entries import (
    COLUMNS,
    FEW_POINTWISE,
    GENERAL,
    IN_PLACE,
    geometry_entry,
)

MODELS = Path(__file__).resolve().parents[2] / "data" / "models"


@pytest.mark.parametrize(
    ("channels", "filter_shape", "pads", "entry"),
    [
        (1, (10, 4, 1), (4, 1), COLUMNS),  # KWS's first layer
        (3, (3, 3, 3), (1, 1), COLUMNS),  # ResNet's and VWW's first layers
        (3, (3, 3, 3), (0, 0), COLUMNS),
        (8, (1, 1, 8), (0, 0), FEW_POINTWISE),  # VWW's 8 -> 16 pointwise
        (8, (1, 1, 8), (1, 0), COLUMNS),  # explicitly padded: windows cut at the top
        (9, (1, 1, 9), (0, 0), IN_PLACE),  # above 8 channels nothing gathers columns
        (64, (3, 3, 64), (1, 1), IN_PLACE),
        (16, (1, 1, 8), (0, 0), GENERAL),  # grouped: the in-place loop does not take it
    ],
)
def test_each_geometry_names_the_entry_whose_loops_it_takes(channels, filter_shape, pads, entry):
    assert geometry_entry(channels, filter_shape, pads) == entry


def size_entries(name: str) -> list[str]:
    """The kernel function of each CONV_2D of a corpus model resolved at goal size."""
    path = MODELS / f"{name}.tflite"
    config = ConvertArgs.model_validate({"model": {"path": str(path)}, "optimization": {"goal": "size"}})
    context = build_default_registry_context()
    platform = resolve_platform(config.platform, context)
    model = run_transforms(load_model(path, 0, context), config, context)
    operators = resolve_operators(model, platform, config, context)
    return [op.kernel_function() for op in operators if op.op.op_type == "CONV_2D"]


def test_kws_and_resnet_name_the_column_entry_first_and_the_in_place_one_after():
    for name in ("mlperf_kws_dscnn_int8", "mlperf_ic_resnet8_int8"):
        first, *rest = size_entries(name)
        assert first == COLUMNS and rest and set(rest) == {IN_PLACE}, name


def test_a_module_taking_both_column_loops_calls_the_general_entry_everywhere():
    # VWW's 3x3 first layer gathers windows and its 8 -> 16 pointwise reads pixel pairs: every
    # loop is linked either way, and the general entry alone is the least code.
    entries = size_entries("mlperf_vww_mobilenetv1_025_int8")
    assert len(entries) > 10 and set(entries) == {GENERAL}


def test_the_module_scan_runs_once_per_model():
    # Every convolution of a module asks; the answer is kept for the model it was computed on.
    size_entries("mlperf_kws_dscnn_int8")
    last = unfolded_entries._LAST
    assert last is not None and last[1] == frozenset({COLUMNS, IN_PLACE})
    assert unfolded_entries.module_entries(last[0]) is last[1]
