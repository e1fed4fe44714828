"""Memory-aware kernel choice: kernel scratch never raises a scratch arena above the tensors' peak.

At ``optimization.goal`` balanced (the default), size and accuracy, an operator's optional
scratch buffer (the int8 CONV_2D fast paths') is dropped where it would make the scratch arena
larger than the tensors alone need, and the kernel takes its scratch-free variant; at
``latency`` every buffer stays. The property is checked on every MLPerf Tiny model of the
corpus (host conversion), with no two buffers live at one operator sharing a byte, and the
int8 models stay bit-exact against the reference: on the host (the generic loop) and, for KWS,
on the Cortex-M55 under QEMU (Helium's scratch-free path, hk_conv_s8_lean).
"""

from __future__ import annotations

import pytest
from helia_aot import AotConverter, ConvertArgs
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


def plan(entry, goal: str):
    """Load, transform, resolve and plan one corpus model as the converter does."""
    config = ConvertArgs.model_validate(
        {"model": {"path": str(model_path(entry))}, "optimization": {"goal": goal}}
    )
    context = build_default_registry_context()
    platform = resolve_platform(config.platform, context)
    model = run_transforms(load_model(model_path(entry), 0, context), config, context)
    operators = resolve_operators(model, platform, config, context)
    return model, operators, plan_memory(model, operators, platform, config, context)


def scratch_regions(memory_plan):
    return [r for r in memory_plan.regions if r.role == "scratch"]


@pytest.mark.parametrize("entry", MLPERF, ids=[e["name"] for e in MLPERF])
def test_scratch_used_is_the_tensor_only_peak_and_live_buffers_do_not_overlap(entry):
    model, operators, memory_plan = plan(entry, "balanced")
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


@pytest.mark.parametrize("goal", ["balanced", "size"])
def test_the_peak_pointwise_convolutions_of_kws_run_without_scratch(goal):
    entry = next(e for e in MLPERF if e["name"] == "mlperf_kws_dscnn_int8")
    _, operators, memory_plan = plan(entry, goal)
    (region,) = scratch_regions(memory_plan)
    assert (region.used, region.tensor_peak_live) == (16_000, 16_000)
    dropped = [op for op in operators if op.dropped_scratch]
    assert dropped and all(op.op.op_type == "CONV_2D" for op in dropped)
    assert all(not op.has_scratch("scratch") for op in dropped)
    # The first convolution (490 B in, 8,000 B out) has room: it keeps its fast path's buffer.
    assert any(op.has_scratch("scratch") for op in operators if op.op.op_type == "CONV_2D")


def test_latency_keeps_every_fast_path_buffer():
    entry = next(e for e in MLPERF if e["name"] == "mlperf_kws_dscnn_int8")
    _, operators, memory_plan = plan(entry, "latency")
    (region,) = scratch_regions(memory_plan)
    assert memory_plan.dropped_scratch == {}
    assert not any(op.dropped_scratch for op in operators)
    assert region.tensor_peak_live == 16_000 and region.used > region.tensor_peak_live


def convert_with_golden(entry, tmp_path, prefix="aot"):
    golden = corpus_golden_to_npz(
        golden_path(entry), tmp_path / "golden.npz", outputs=expected_outputs(entry)
    )
    config = {
        "model": {"path": str(model_path(entry))},
        "module": {"path": str(tmp_path / "out"), "name": "module", "prefix": prefix},
        "test": {"enabled": True, "golden_data": str(golden), "tolerance": 0.0},
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert()


@pytest.mark.parametrize("entry", MLPERF_INT8, ids=[e["name"] for e in MLPERF_INT8])
def test_int8_models_stay_bit_exact_on_the_host(entry, tmp_path):
    result = convert_with_golden(entry, tmp_path)
    scratch = [a for a in result.arenas if a["role"] == "scratch"]
    assert [a["used"] for a in scratch] == [a["tensor_peak_live"] for a in scratch]
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{entry['name']}:\n{run.stdout}\n{run.stderr[-4000:]}"


CROSS_MODELS = {"mlperf_kws_dscnn_int8": 16_000, "mlperf_ic_resnet8_int8": 49_152}
"""KWS: pointwise convolutions read in place; ResNet-8: padded 3x3 windows clipped at the edges."""


@pytest.mark.cross
@pytest.mark.parametrize("name", sorted(CROSS_MODELS))
def test_scratch_free_helium_path_is_bit_exact_on_the_m55(name, tmp_path):
    entry = next(e for e in MLPERF if e["name"] == name)
    result = convert_with_golden(entry, tmp_path, prefix="m")
    assert [a["used"] for a in result.arenas if a["role"] == "scratch"] == [CROSS_MODELS[name]]
    elf = cross_build_module(result.output, tmp_path / "m55", "m55", prefix="m")
    run = run_qemu(elf, "m55", timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    assert "PASS" in run.stdout
