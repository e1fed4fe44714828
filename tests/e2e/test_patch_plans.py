"""Goal ``size`` on the VWW models: the planner runs the first layers in patches by itself.

Why: VWW's peak layer by layer is its first layers (the 27,648 B input and the 48x48 activations);
patch-based execution is what takes it under 0.60 of balanced. The planner must find the stage
and band height on its own, lay the stage output over the consumed input, keep every other goal
unchanged, and never let two buffers live at one operator share a byte (the lifetimes as the
module runs them: the whole stage at its first operator's step). The modules' bit-exactness at
size is checked with the other MLPerf models in test_memory_aware_scratch.py.
"""

from __future__ import annotations

import pytest
from helia_aot.memory import compute_lifetimes

from .test_memory_aware_scratch import MLPERF, plan

VWW = ("mlperf_vww_mobilenetv1_025_int8", "mlperf_vww_trained_int8")


@pytest.mark.parametrize("name", VWW)
def test_vww_streams_its_first_four_layers_in_one_row_bands_at_size(name):
    """The planner's choice on both VWW models: the 3x3/2 convolution, the depthwise, the
    pointwise to 16 channels and the stride-2 depthwise, streaming 24 bands of one output row
    (each band keeps the rows the next reads again: no extra MACs), the 9,216 B output written
    over the 27,648 B input, a 4,992 B patch buffer: 32,640 B in all (0.59 of balanced's
    55,488 B; recomputing the halos would reach 31,104 B for 936,192 extra MACs, and that is
    within 1/16), and no two buffers live at one operator share a byte."""
    entry = next(e for e in MLPERF if e["name"] == name)
    model, operators, memory_plan = plan(entry, "size")
    (stage,) = memory_plan.patches
    assert (stage.first, stage.last, stage.rows_per_band, stage.bands) == (0, 3, 1, 24)
    assert stage.in_place and stage.mode == "stream" and stage.extra_macs == 0
    assert stage.buffer_bytes == 4_992
    (region,) = [r for r in memory_plan.regions if r.role == "scratch"]
    assert region.used == 32_640 <= 0.6 * 55_488
    # Lifetimes as the module runs them: the whole stage at its first operator's step.
    lifetimes = dict(compute_lifetimes(model, alias_of=memory_plan.alias_of))
    lifetimes[stage.output_id] = (stage.first, lifetimes[stage.output_id][1])
    for index in range(stage.first, stage.last + 1):
        for tid in operators[index].op.named_tensors.values():
            if tid in lifetimes:
                lifetimes[tid] = (stage.first, stage.first)
    buffer = memory_plan.placements[stage.buffer_id]
    for tid, (offset, nbytes) in zip(stage.intermediates, stage.slots, strict=True):
        placed = memory_plan.placements[tid]
        assert placed.offset == buffer.offset + offset and offset + nbytes <= buffer.size
        del lifetimes[tid]  # inside the patch buffer, checked just above
    placed = [
        (tid, memory_plan.placements[tid], span)
        for tid, span in lifetimes.items()
        if tid in memory_plan.placements and memory_plan.placements[tid].region == region.id
    ]
    shared = {(stage.input_id, stage.output_id)}
    for i, (a, pa, (fa, la)) in enumerate(placed):
        for b, pb, (fb, lb) in placed[i + 1 :]:
            if max(fa, fb) > min(la, lb):
                continue
            overlap = pa.offset < pb.offset + pb.size and pb.offset < pa.offset + pa.size
            in_place = (a, b) in shared or (la == fb or lb == fa)
            assert not overlap or in_place, f"{a} and {b} overlap while both live"


def test_balanced_and_latency_never_run_patches():
    entry = next(e for e in MLPERF if e["name"] == VWW[0])
    for goal in ("balanced", "latency"):
        _, operators, memory_plan = plan(entry, goal)
        assert memory_plan.patches == [] and not any(getattr(op, "patch_stage", None) for op in operators)
