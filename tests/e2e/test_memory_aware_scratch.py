"""Memory-aware kernel choice: which kernel scratch buffers each goal gives up.

At ``optimization.goal`` size, an operator's optional scratch buffer (the int8 CONV_2D fast
paths') is dropped where it would make the scratch arena larger than the tensors alone need,
and the kernel takes its scratch-free variant: ``used`` is the tensor-only peak on every
MLPerf Tiny model of the corpus, with no two buffers live at one operator sharing a byte. At
balanced (the default) a buffer goes only where that costs no instructions: its scratch-free
variant is free on every instruction set, or its kernel places it in the operator's dead bytes
(hk_conv_s8_reuse, where the input dies): ``used`` is the tensor-only peak on the MLPerf int8
models with every fast path kept; at ``latency`` every buffer stays. The int8 models stay
bit-exact against the reference at size (convolutions from the model's bias, no folded
constants, hk_conv_unfolded.h): on the host and on the Cortex-M55 (Helium's four-filter loop) and
the Cortex-M4 (the general loop, the DSP depthwise loop) under QEMU.
"""

from __future__ import annotations

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.aot.operators.base import SCRATCH_ISAS
from helia_aot.memory import compute_lifetimes
from helia_aot.pipeline.load import load_model
from helia_aot.pipeline.plan import plan_memory
from helia_aot.pipeline.resolve import resolve_operators
from helia_aot.pipeline.transform import run_transforms
from helia_aot.platforms import resolve_platform
from helia_aot.registry import build_default_registry_context
from helia_aot.testing import corpus_golden_to_npz, cross_build_module, run_module_test_case, run_qemu

from .corpus import expected_outputs, golden_path, manifest, model_path

MLPERF = [e for e in manifest() if e["category"] == "mlperf_tiny"]
MLPERF_INT8 = [e for e in MLPERF if e["name"].endswith("_int8")]


def plan(entry, goal: str, **knobs: str):
    """Load, transform, resolve and plan one corpus model as the converter does."""
    # Constants read from MRAM: the scratch arena has the whole DTCM (by default the float32
    # models' constants take most of it and their activations spill to SRAM, as in heliaAOT 1.1).
    in_mram = [{"type": "constant", "attributes": {"memory": "mram"}}]
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(model_path(entry))},
            "optimization": {"goal": goal, **knobs},
            "memory": {"tensors": in_mram},
        }
    )
    context = build_default_registry_context()
    platform = resolve_platform(config.platform, context)
    model = run_transforms(load_model(model_path(entry), 0, context), config, context)
    operators = resolve_operators(model, platform, config, context)
    return model, operators, plan_memory(model, operators, platform, config, context)


def scratch_regions(memory_plan):
    return [r for r in memory_plan.regions if r.role == "scratch"]


MAIN_SCRATCH_USED = {
    "mlperf_kws_dscnn_int8": 16_896,
    "mlperf_ic_resnet8_int8": 50_144,
    "mlperf_vww_mobilenetv1_025_int8": 55_488,
    "mlperf_ad_fc_autoencoder_int8": 768,
    "mlperf_ad_toycar_trained_int8": 768,
    "mlperf_vww_trained_int8": 55_488,
}
"""The scratch arena's ``used`` before the memory-aware choice (every fast path's buffer kept)."""


@pytest.mark.parametrize("entry", MLPERF, ids=[e["name"] for e in MLPERF])
def test_size_scratch_used_is_the_tensor_only_peak_and_live_buffers_do_not_overlap(entry):
    model, operators, memory_plan = plan(entry, "size")
    regions = scratch_regions(memory_plan)
    assert len(regions) == 1
    (region,) = regions
    assert region.tensor_peak_live is not None and region.tensor_peak_live > 0
    assert region.used == region.tensor_peak_live
    # Every kernel buffer left in the plan fits under the bound; the dropped ones are recorded.
    assert all(op.op.id in memory_plan.dropped_scratch for op in operators if op.dropped_scratch)
    lifetimes = compute_lifetimes(model, alias_of=memory_plan.alias_of)
    placed = [
        (tid, memory_plan.placements[tid], lifetimes[tid])
        for tid in lifetimes
        if tid in memory_plan.placements
        and memory_plan.placements[tid].region == region.id
        and tid not in memory_plan.alias_of
    ]
    for i, (a, pa, (fa, la)) in enumerate(placed):
        for b, pb, (fb, lb) in placed[i + 1 :]:
            if max(fa, fb) > min(la, lb):
                continue  # never live at one operator
            shared_bytes = pa.offset < pb.offset + pb.size and pb.offset < pa.offset + pa.size
            # An elementwise output may take the bytes of an input that dies where it is born.
            in_place = la == fb or lb == fa
            assert not shared_bytes or in_place, f"{a} and {b} overlap while both live"


TENSOR_PEAK = {
    "mlperf_kws_dscnn_int8": 16_000,
    "mlperf_ic_resnet8_int8": 49_152,
    "mlperf_vww_mobilenetv1_025_int8": 55_296,
    "mlperf_ad_fc_autoencoder_int8": 768,
    "mlperf_ad_toycar_trained_int8": 768,
    "mlperf_vww_trained_int8": 55_296,
}
"""The tensors' own peak (the lower bound of any plan) of each MLPerf int8 model."""


@pytest.mark.parametrize("entry", MLPERF_INT8, ids=[e["name"] for e in MLPERF_INT8])
def test_balanced_reaches_the_tensor_only_peak_without_giving_up_a_fast_path(entry):
    # The planner property at the default goal: used == the tensors' peak, every buffer that
    # would raise it placed by its kernel in dead bytes (the same fast path), none dropped for
    # a scratch-free variant that would cost instructions on some core.
    _, operators, memory_plan = plan(entry, "balanced")
    (region,) = scratch_regions(memory_plan)
    assert region.used == region.tensor_peak_live == TENSOR_PEAK[entry["name"]]
    assert region.used <= MAIN_SCRATCH_USED[entry["name"]]
    for op in operators:
        for name in op.dropped_scratch:
            assert name in op.reused_scratch, f"{op.op.id} lost its fast path's buffer"
            assert "dead bytes" in op.scratch_drop_reasons[name]
            # The other cores' call (Helium may instead read VWW's pointwise 8->16 pixels in
            # place with conv_s8_im2col, which needs no buffer at all).
            assert op.without_im2col(op.kernel_function) == "conv_s8_reuse"
    assert all(op.has_scratch(name) for op in operators for name in op.optional_scratch)
    assert not any(SCRATCH_ISAS <= op.scratch_free_on[n] for op in operators for n in op.optional_scratch)


def test_balanced_places_the_buffer_only_where_the_input_dies():
    # ResNet-8's first convolution of a block reads the block input, which the residual ADD
    # still needs: its input rows are never free, so it keeps a buffer of its own (in a gap).
    entry = next(e for e in MLPERF if e["name"] == "mlperf_ic_resnet8_int8")
    _, operators, _ = plan(entry, "balanced")
    reused = [op for op in operators if op.reused_scratch]
    assert reused and all(op.op.op_type == "CONV_2D" for op in reused)

    def readers(op):
        return [o for o in operators if op.op.input_ids[0] in o.op.input_ids]

    assert all(readers(op) == [op] for op in reused)
    shared = [op for op in operators if "scratch" in op.optional_scratch and len(readers(op)) > 1]
    assert shared and not any(op.reused_scratch or op.dropped_scratch for op in shared)


def test_size_runs_the_convolutions_without_folded_constants_or_buffers_on_kws():
    # goal size keeps the model's own constants: the int8 convolutions run their fast loops from
    # the model's bias (no offset_bias), so the fast path's buffer is never asked for and every
    # CONV_2D calls the hk_conv_unfolded family: the 1-channel first layer its column entry, the
    # pointwise layers the in-place entry (Helium's four-filter loop, the general loop elsewhere).
    entry = next(e for e in MLPERF if e["name"] == "mlperf_kws_dscnn_int8")
    for kernel in ("auto", "specialized"):
        _, operators, memory_plan = plan(entry, "size", kernel=kernel)
        (region,) = scratch_regions(memory_plan)
        # 8,000 B of activations and the 640 B row ring of an in-place depthwise (16,000 B
        # before size wrote convolutions over their inputs).
        assert (region.used, region.tensor_peak_live) == (8_640, 8_640)
        assert memory_plan.dropped_scratch == {}
        convs = [op for op in operators if op.op.op_type in ("CONV_2D", "DEPTHWISE_CONV_2D")]
        assert all(op.knob("kernel") == "specialized" for op in convs)
        assert not any("offset_bias" in op.op.named_tensors or op.has_scratch("scratch") for op in convs)
        entries = {op.kernel_function() for op in convs if op.op.op_type == "CONV_2D"}
        assert entries == {"conv_s8_unfolded_columns", "conv_s8_unfolded_in_place"}


def test_the_written_plan_lists_each_dropped_buffer_with_the_goals_reason(tmp_path):
    entry = next(e for e in MLPERF if e["name"] == "mlperf_kws_dscnn_int8")
    records = {}
    for goal in ("balanced", "size"):
        config = {
            "model": {"path": str(model_path(entry))},
            "module": {"path": str(tmp_path / goal), "name": "m", "prefix": "m"},
            "optimization": {"goal": goal, "kernel": "specialized"},
        }
        result = AotConverter(ConvertArgs.model_validate(config)).convert()
        records[goal] = [d for op in result.plan.operators for d in op.dropped_scratch]
    # Balanced places the buffers in the peak operators' dead bytes; size never asks for them
    # (its convolutions run without folded constants, hk_conv_s8_unfolded).
    assert [(d.buffer, d.bytes) for d in records["balanced"]] == [("scratch", 896)] * 4
    assert all(d.reason.startswith("goal balanced:") for d in records["balanced"])
    assert records["size"] == []


class _Operator:
    """Just what the goal rule reads of an operator: where its scratch-free variant is free."""

    def __init__(self, free_on):
        self.scratch_free_on = {"scratch": frozenset(free_on)}


@pytest.mark.parametrize(
    ("goal", "free_on", "reusable", "dropped"),
    [
        ("balanced", SCRATCH_ISAS, False, True),
        ("accuracy", SCRATCH_ISAS, False, True),
        ("balanced", {"mve"}, False, False),
        ("balanced", set(), False, False),
        ("balanced", set(), True, True),
        ("accuracy", {"mve"}, True, True),
        ("size", set(), False, True),
        ("latency", SCRATCH_ISAS, False, False),
        ("latency", set(), True, False),
    ],
)
def test_the_goal_rule_drops_at_balanced_only_what_costs_no_instructions(goal, free_on, reusable, dropped):
    from helia_aot.pipeline.plan_choices import may_drop

    assert may_drop(goal, _Operator(free_on), "scratch", reusable) is dropped


def test_a_pointwise_convolution_over_few_channels_is_free_on_helium_only():
    entry = next(e for e in MLPERF if e["name"] == "mlperf_vww_mobilenetv1_025_int8")
    _, operators, _ = plan(entry, "latency")
    free = {
        op.op.id: op.scratch_free_on["scratch"]
        for op in operators
        if op.op.op_type == "CONV_2D" and "scratch" in op.scratch_free_on
    }
    pointwise_small = {
        op.op.id
        for op in operators
        if op.op.op_type == "CONV_2D" and tuple(op.weights.shape[1:3]) == (1, 1) and op.source.shape[3] <= 16
    }
    assert pointwise_small and {i for i, isas in free.items() if isas} == pointwise_small
    assert all(free[i] == {"mve"} for i in pointwise_small)


def test_latency_keeps_every_fast_path_buffer():
    entry = next(e for e in MLPERF if e["name"] == "mlperf_kws_dscnn_int8")
    _, operators, memory_plan = plan(entry, "latency")
    (region,) = scratch_regions(memory_plan)
    assert memory_plan.dropped_scratch == {}
    assert not any(op.dropped_scratch for op in operators)
    assert region.tensor_peak_live == 16_000 and region.used > region.tensor_peak_live


def convert_with_golden(entry, tmp_path, prefix="aot", goal="size"):
    golden = corpus_golden_to_npz(
        golden_path(entry), tmp_path / "golden.npz", outputs=expected_outputs(entry)
    )
    config = {
        "model": {"path": str(model_path(entry))},
        "module": {"path": str(tmp_path / "out"), "name": "module", "prefix": prefix},
        "test": {"enabled": True, "golden_data": str(golden), "tolerance": 0.0},
        "optimization": {"goal": goal},
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert()


@pytest.mark.parametrize("entry", MLPERF_INT8, ids=[e["name"] for e in MLPERF_INT8])
def test_int8_models_stay_bit_exact_on_the_host_at_size(entry, tmp_path):
    result = convert_with_golden(entry, tmp_path)
    scratch = [a for a in result.arenas if a["role"] == "scratch"]
    assert [a["used"] for a in scratch] == [a["tensor_peak_live"] for a in scratch]
    # The fast loops without folded constants, named per geometry at conversion (hk_conv_unfolded.h).
    assert {op.knobs["kernel"].value for op in result.plan.operators if "kernel" in op.knobs} == {
        "specialized"
    }
    convs = {op.kernel.entry for op in result.plan.operators if op.op_type == "CONV_2D"}
    assert convs <= {"hk_conv_s8_unfolded", "hk_conv_s8_unfolded_columns", "hk_conv_s8_unfolded_in_place"}
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{entry['name']}:\n{run.stdout}\n{run.stderr[-4000:]}"


CROSS_MODELS = {
    "mlperf_kws_dscnn_int8": 8_640,
    "mlperf_ic_resnet8_int8": 33_792,
    "mlperf_vww_mobilenetv1_025_int8": 32_640,
    "mlperf_vww_trained_int8": 32_640,
}
"""KWS: pointwise convolutions read in place; ResNet-8: padded 3x3 windows clipped at the edges.
Both write their depthwise / 3x3 layers over their inputs row by row at size (the figures are the
in-place arenas), so the cross runs also check the row loop against the reference on each core.
The VWW models stream their first four layers in patches (one-row bands laid over the input)."""


@pytest.mark.cross
@pytest.mark.parametrize("core", ["m55", "m4"])
@pytest.mark.parametrize("name", sorted(CROSS_MODELS))
def test_scratch_free_and_in_place_paths_are_bit_exact_on_both_cores_at_size(name, core, tmp_path):
    entry = next(e for e in MLPERF if e["name"] == name)
    result = convert_with_golden(entry, tmp_path, prefix="m")
    scratch = [a for a in result.arenas if a["role"] == "scratch"]
    assert [a["used"] for a in scratch] == [CROSS_MODELS[name]]
    assert [a["used"] for a in scratch] == [a["tensor_peak_live"] for a in scratch]
    elf = cross_build_module(result.output, tmp_path / core, core, prefix="m")
    run = run_qemu(elf, core, timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    assert "PASS" in run.stdout


@pytest.fixture(scope="module")
def ad_size_module(tmp_path_factory):
    """AD, the MLPerf int8 model CROSS_MODELS leaves out (the fully connected fast path size
    keeps), converted once at size for both cores."""
    entry = next(e for e in MLPERF if e["name"] == "mlperf_ad_fc_autoencoder_int8")
    tmp = tmp_path_factory.mktemp("ad")
    return convert_with_golden(entry, tmp, prefix="m"), tmp


@pytest.mark.cross
@pytest.mark.parametrize("core", ["m55", "m4"])
def test_ad_is_bit_exact_on_both_cores_at_size(ad_size_module, core):
    result, tmp = ad_size_module
    scratch = [a for a in result.arenas if a["role"] == "scratch"]
    assert [a["used"] for a in scratch] == [a["tensor_peak_live"] for a in scratch]
    elf = cross_build_module(result.output, tmp / core, core, prefix="m")
    run = run_qemu(elf, core, timeout=600, count=False)
    assert run.returncode == 0, run.stdout
    assert "PASS" in run.stdout


@pytest.mark.cross
@pytest.mark.parametrize(
    ("name", "core"), [("mlperf_kws_dscnn_int8", "m4"), ("mlperf_ic_resnet8_int8", "m55")]
)
def test_dead_bytes_placement_is_bit_exact_under_qemu_at_balanced(name, core, tmp_path):
    # KWS on the DSP path (pointwise, two pixels at a time), ResNet-8 on Helium (3x3 windows in
    # rows, the last band starting below a padded top): the golden test passes at the bound.
    entry = next(e for e in MLPERF if e["name"] == name)
    result = convert_with_golden(entry, tmp_path, prefix="m", goal="balanced")
    assert [a["used"] for a in result.arenas if a["role"] == "scratch"] == [TENSOR_PEAK[name]]
    assert any(
        d.reason.startswith("goal balanced:") for op in result.plan.operators for d in op.dropped_scratch
    )
    elf = cross_build_module(result.output, tmp_path / core, core, prefix="m")
    run = run_qemu(elf, core, timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    assert "PASS" in run.stdout


def test_size_constants_are_at_or_below_the_products_on_kws():
    # heliaAOT 1.1 at its defaults stores 29,072 B of constants for KWS int8; goal size runs its
    # convolutions from the model's own bias (no folded offset_bias), so only the fully
    # connected layer's folded bias (48 B) is added to the generic kernels' constants.
    entry = next(e for e in MLPERF if e["name"] == "mlperf_kws_dscnn_int8")
    constants = {
        goal: sum(r.used for r in plan(entry, goal)[2].regions if r.role == "constant")
        for goal in ("balanced", "size")
    }
    assert constants["size"] < constants["balanced"]
    assert constants["size"] <= 29_072, constants
