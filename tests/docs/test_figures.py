"""Every measured figure docs/ quotes is marked, registered and, where it is cheap, recomputed.

A number in the docs that nothing re-checks goes stale without anyone noticing (the KWS arena the
memory page quoted was the one before the memory-aware choice). So each figure stands beside a
``<!-- fig: name -->`` marker, docs/figures.json holds under that name the numbers in the order
the page quotes them with the command that produced them, the day and the commit, and:

- every figure in docs/ carries a marker (tests/docs/figure_scan.py says what a figure is);
- every marked number equals the registry's, and every registry entry is quoted somewhere;
- the figures a host conversion gives (arena and constant bytes, patch stages, tensor sizes) and
  those derived from other entries (ratios, differences) are recomputed here, and the KWS
  profile sample is re-run under QEMU (``cross``); each of those entries says ``checked``;
- the rest (instruction counts and code sizes of whole benches) name the bench command that wrote
  them (``--write-figures``), with its date and commit.

docs/figures.md describes the mechanism for the reader.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
from helia_aot import AotConverter, ConvertArgs

from .figure_scan import NOT_FIGURES, PAGES, ROOT, Segment, scan, scan_docs

REGISTRY_PATH = ROOT / "docs" / "figures.json"
MODELS = ROOT / "tests" / "data" / "models"
STREAMING_MODEL = ROOT / "tests" / "data" / "streaming" / "okay_nabu.tflite"
SHORT = {
    "kws": "mlperf_kws_dscnn_int8",
    "ic": "mlperf_ic_resnet8_int8",
    "vww": "mlperf_vww_mobilenetv1_025_int8",
    "vww96": "mlperf_vww_trained_int8",
    "ad": "mlperf_ad_fc_autoencoder_int8",
}
CHECKED_HERE = "tests/docs/test_figures.py"

Values = list[float | None]


def registry() -> dict[str, dict[str, object]]:
    return json.loads(REGISTRY_PATH.read_text(encoding="utf-8"))


def registered(name: str) -> list[float]:
    values = registry()[name]["values"]
    assert isinstance(values, list)
    return values


def quoted(segment: Segment) -> list[float]:
    return [figure.value for figure in segment.figures]


# ---------------------------------------------------------------------------------------------
# The scan itself, on a page written for it.


def test_the_scan_claims_figures_by_marker_and_leaves_other_numbers_alone(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Version 1.2.0 exits 2 on a 3x3 filter; KWS needs 16,000 B and 1,061,268\n"
        "instructions<!-- fig: a --> (8.6% fewer<!-- fig: b -->), then 12 ms unmarked.\n"
        "\n"
        "| model | bytes | ratio |\n"
        "|---|---|---|\n"
        "| KWS | 8,640 (8,640) | 0.54 <!-- fig: c --> |\n"
        "| VWW | 32,640 | 7 |\n"
        "\n"
        "<!-- fig: d -->\n"
        "```text\n"
        "total 1,346,750 100.0%\n"
        "```\n"
        "```python\n"
        "x = 16_896  # 16,896 B, asserted where the block runs\n"
        "```\n",
        encoding="utf-8",
    )
    figures, segments = scan(page)
    assert [(s.name, quoted(s)) for s in segments] == [
        ("a", [16000.0, 1061268.0]),
        ("b", [8.6]),
        ("c", [8640.0, 8640.0, 0.54]),
        ("d", [1346750.0, 100.0]),
    ]
    assert [(f.text, f.line) for f in figures if f.marker is None] == [("12", 2), ("32,640", 7)]


def test_every_figure_in_docs_carries_a_marker() -> None:
    figures, _ = scan_docs()
    assert len(figures) > 300  # the scan sees the pages' figures at all
    unmarked = [f"{f.page}:{f.line}: {f.text}" for f in figures if f.marker is None]
    assert unmarked == [], (
        "figures without a <!-- fig: name --> marker (register each in docs/figures.json with "
        "the command that measured it; see docs/figures.md):\n" + "\n".join(unmarked)
    )


def test_every_not_figure_phrase_still_occurs_on_its_page() -> None:
    pages = {page.name: page.read_text(encoding="utf-8") for page in PAGES}
    stale = [
        (page, phrase)
        for page, phrases in NOT_FIGURES.items()
        for phrase in phrases
        if phrase not in pages[page]
    ]
    assert stale == []


# ---------------------------------------------------------------------------------------------
# Docs against the registry.


def test_every_marked_figure_equals_the_registry() -> None:
    entries = registry()
    _, segments = scan_docs()
    unknown = sorted({f"{s.page}:{s.line}: {s.name}" for s in segments if s.name not in entries})
    assert unknown == [], "markers naming no entry of docs/figures.json"
    differ = [
        f"{s.page}:{s.line}: {s.name}: the page has {quoted(s)}, the registry {entries[s.name]['values']}"
        for s in segments
        if quoted(s) != entries[s.name]["values"]
    ]
    assert differ == []


def test_every_registry_entry_is_quoted_and_says_where_it_comes_from() -> None:
    entries = registry()
    _, segments = scan_docs()
    assert sorted(set(entries) - {s.name for s in segments}) == [], "entries no page quotes"
    for name, entry in entries.items():
        assert set(entry) <= {"values", "source", "measured", "commit", "checked"}, name
        assert isinstance(entry["values"], list) and entry["values"], name
        assert isinstance(entry["source"], str) and len(entry["source"]) > 10, name
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(entry["measured"])), name
        assert re.fullmatch(r"[0-9a-f]{7,40}(\+dirty)?", str(entry["commit"])), name


def test_the_entries_marked_checked_are_the_ones_this_file_checks() -> None:
    checked = {name for name, entry in registry().items() if entry.get("checked") == CHECKED_HERE}
    assert checked == set(RECOMPUTED) | set(PROFILED)


def test_write_figures_records_command_date_and_commit(tmp_path: Path) -> None:
    """The helper bench scripts call with ``--write-figures``."""
    figures = load_bench_module("figures")
    path = tmp_path / "figures.json"
    path.write_text(
        figures.dumps({"old": {"values": [1], "source": "x", "measured": "2026-01-01", "commit": "abc1234"}})
    )
    changed = figures.write_figures({"old": [1], "new": [2.5, 3]}, "python bench/x.py", path=path)
    assert changed == ["new"]
    written = json.loads(path.read_text())
    assert written["new"]["values"] == [2.5, 3] and written["new"]["source"] == "python bench/x.py"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", written["old"]["measured"])
    assert written["old"]["commit"] != "abc1234"


# ---------------------------------------------------------------------------------------------
# Figures a host conversion gives, recomputed.


def load_bench_module(name: str) -> ModuleType:
    """A bench script as a module (bench/ is not a package), for the records it keeps."""
    bench = str(ROOT / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the body runs
    spec.loader.exec_module(module)
    return module


@cache
def converted(model: str, goal: str = "balanced", platform: str = "apollo510_evb") -> dict[str, int]:
    """Arena bytes of one conversion: ``scratch``, ``bound`` (the tensors' peak), ``constant``,
    ``persistent`` (each arena's ``used``), and ``reserved_scratch``, ``reserved_persistent``
    (the arenas' aligned ``total_size``, what the module declares)."""
    path = STREAMING_MODEL if model == "okay_nabu" else MODELS / f"{SHORT[model]}.tflite"
    with tempfile.TemporaryDirectory() as out:
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(path)},
                "module": {"path": out, "name": "m"},
                "optimization": {"goal": goal},
                "platform": {"name": platform},
            }
        )
        result = AotConverter(config).convert()
    sizes = {"scratch": 0, "bound": 0, "constant": 0, "persistent": 0}
    for arena in result.arenas:
        sizes[arena["role"]] = sizes.get(arena["role"], 0) + arena["used"]
        key = f"reserved_{arena['role']}"
        sizes[key] = sizes.get(key, 0) + arena["total_size"]
        if arena["role"] == "scratch":
            sizes["bound"] += arena.get("tensor_peak_live") or 0
    return sizes


@cache
def planned(model: str, goal: str, modes: tuple[str, ...] | None = None) -> tuple[object, list, object]:
    """Load, transform, resolve and plan as the converter does; ``modes`` restricts the patch
    planner's modes (the alternative the docs compare with)."""
    from helia_aot.pipeline import patch_plan
    from helia_aot.pipeline.load import load_model
    from helia_aot.pipeline.plan import plan_memory
    from helia_aot.pipeline.resolve import resolve_operators
    from helia_aot.pipeline.transform import run_transforms
    from helia_aot.platforms import resolve_platform
    from helia_aot.registry import build_default_registry_context

    path = MODELS / f"{SHORT[model]}.tflite"
    config = ConvertArgs.model_validate({"model": {"path": str(path)}, "optimization": {"goal": goal}})
    context = build_default_registry_context()
    platform = resolve_platform(config.platform, context)
    saved = patch_plan.MODES
    patch_plan.MODES = modes or saved
    try:
        model_air = run_transforms(load_model(path, 0, context), config, context)
        operators = resolve_operators(model_air, platform, config, context)
        memory_plan = plan_memory(model_air, operators, platform, config, context)
    finally:
        patch_plan.MODES = saved
    return model_air, operators, memory_plan


def tensor_bytes(model: str, goal: str, operator: int, side: str) -> int:
    """Bytes of an operator's first input (``in``) or output (``out``)."""
    air, operators, _ = planned(model, goal)
    op = operators[operator].op
    tid = op.input_ids[0] if side == "in" else op.output_ids[0]
    return int(air.tensors[tid].nbytes)


def goal_row(model: str, goal: str) -> Values:
    sizes = converted(model, goal)
    return [sizes["scratch"], sizes["bound"], sizes["constant"], None, None, None]


def every_goal_row(model: str) -> Values:
    rows = {tuple(goal_row(model, goal)) for goal in ("latency", "balanced", "size")}
    assert len(rows) == 1, f"{model} differs by goal: {rows}"
    return list(rows.pop())


def scratch_by_goal(model: str) -> Values:
    balanced, size = converted(model, "balanced")["scratch"], converted(model, "size")["scratch"]
    return [balanced, size, round(size / balanced, 2)]


def kws_picture() -> Values:
    out0, in1, out1 = (tensor_bytes("kws", "size", *at) for at in ((0, "out"), (1, "in"), (1, "out")))
    in2, out2, in9 = (tensor_bytes("kws", "size", *at) for at in ((2, "in"), (2, "out"), (9, "in")))
    balanced, size = converted("kws", "balanced"), converted("kws", "size")
    header = [balanced["scratch"], balanced["bound"], size["scratch"]]
    return [*header, out0, out0, in1, out1, in1, in2, out2, in2, in9, in9]


def vww_stream_stage() -> Values:
    _, _, memory_plan = planned("vww", "size")
    (stage,) = memory_plan.patches
    assert stage.mode == "stream"
    return [
        tensor_bytes("vww", "size", stage.last, "out"),
        tensor_bytes("vww", "size", stage.first, "in"),
        stage.buffer_bytes,
        tensor_bytes("vww", "size", 2, "out"),
    ]


def vww_recompute_stage() -> Values:
    _, operators, memory_plan = planned("vww", "size", ("recompute",))
    (stage,) = memory_plan.patches
    (scratch,) = [r for r in memory_plan.regions if r.role == "scratch"]
    macs = sum(int(op.macs() or 0) for op in operators)
    return [scratch.used, stage.buffer_bytes, stage.extra_macs, round(100 * stage.extra_macs / macs, 1), macs]


def vww_picture() -> Values:
    peak = tensor_bytes("vww", "balanced", 2, "in") + tensor_bytes("vww", "balanced", 2, "out")
    return [converted("vww", "balanced")["scratch"], converted("vww", "size")["scratch"], peak]


def fc_folded_bias() -> Values:
    """The constant KWS's FULLY_CONNECTED keeps beside the model's bias: its folded bias tensor."""
    air, operators, _ = planned("kws", "balanced")
    (index,) = [i for i, o in enumerate(operators) if o.op.op_type == "FULLY_CONNECTED"]
    suffix = f"fully_connected_{index}_folded_bias"
    (tensor,) = [t for t in air.tensors.values() if str(t.name).endswith(suffix)]
    return [int(tensor.nbytes)]


def im2col_constants() -> Values:
    """The packed filters and quantization tables the im2col first layers add, per model."""
    totals = []
    for model in ("kws", "ic", "vww"):
        air, _, _ = planned(model, "balanced")
        totals.append(sum(int(t.nbytes) for t in air.tensors.values() if "_im2col_" in str(t.name)))
    return totals


def litert_bindings_size() -> Values:
    import helia_aot.litert

    path = Path(helia_aot.litert.__file__).parent / "schema_py_generated.py"
    return [round(path.stat().st_size / 1e6)]


def products() -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    scratch = load_bench_module("mlperf_memory").PRODUCT_SCRATCH
    constants = load_bench_module("goal_bench").PRODUCT_CONSTANTS
    streaming = load_bench_module("streaming_bench").PRODUCT
    return scratch, constants, streaming


def product_scratch() -> Values:
    scratch, constants, _ = products()
    return [scratch[SHORT["kws"]], constants[SHORT["kws"]], scratch[SHORT["ic"]], scratch[SHORT["vww"]]]


def streaming_row(platform: str) -> Values:
    sizes = converted("okay_nabu", "balanced", platform)
    return [sizes["reserved_scratch"], sizes["reserved_persistent"], None]


def m55(model: str, goal: str) -> float:
    name = f"goal_bench.{model}" + (f".{goal}" if model != "ad" else "")
    return registered(name)[4]


def m4(model: str, goal: str) -> float:
    name = f"goal_bench.{model}" + (f".{goal}" if model != "ad" else "")
    return registered(name)[5]


def balanced_over_latency() -> Values:
    extra = {model: m55(model, "balanced") - m55(model, "latency") for model in ("kws", "ic", "vww")}
    return [max(extra.values()), extra["ic"]]


def size_over_balanced() -> Values:
    ratio = {model: round(m55(model, "size") / m55(model, "balanced"), 2) for model in ("kws", "ic", "vww")}
    return [min(ratio.values()), max(ratio.values()), ratio["kws"]]


def size_over_balanced_m4() -> Values:
    ratios = [m4(model, "size") / m4(model, "balanced") for model in ("kws", "ic", "vww")]
    return [round(min(ratios)), round(max(ratios)), round(m4("ad", "size") / m4("ad", "balanced"))]


def dsp_paths(model: str) -> Values:
    """architecture.md's M4 table: now is goal_bench's balanced M4 count (cross_bench counts the
    same inference), reference the product's count cross_bench keeps, ratio now / reference."""
    reference = load_bench_module("cross_bench").REFERENCE_INSTRUCTIONS[SHORT[model]]["m4"]
    now = m4(model, "balanced")
    return [None, now, reference, round(now / reference, 2)]


def kws_first_layer(name: str, position: int) -> Values:
    """KWS's first convolution at balanced on the M55, quoted in a history paragraph: the count
    of the profile sample's row 0 (which the ``cross`` test below re-runs)."""
    values: Values = [None] * len(registered(name))
    values[position] = registered("kws_profile_sample")[0]
    return values


def ad_totals() -> Values:
    """AD's M4 count at the end of the Helium FULLY_CONNECTED paragraph: goal_bench's (its M55
    count there is history; the pipelined loops' paragraph gives today's)."""
    values: Values = [None] * len(registered("fc_helium.own_loop"))
    values[-1] = m4("ad", "balanced")
    return values


def ad_pipelined() -> Values:
    """AD's M55 instructions in the pipelined loops' paragraph: goal_bench's."""
    values: Values = [None] * len(registered("fc_helium.pipelined"))
    values[-1] = m55("ad", "balanced")
    return values


def f16_speedup() -> Values:
    """optimization.md's fast-accumulation range: float16.md's convolution and depthwise ratios."""
    fast = registered("f16_accumulation.fast")
    return [fast[1], round(fast[3])]


def default_placement_kws() -> list[int]:
    """KWS on the Apollo510 by default: the scratch arena and the constants, both in DTCM."""
    with tempfile.TemporaryDirectory() as out:
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(MODELS / f"{SHORT['kws']}.tflite")},
                "module": {"path": out},
                "dry_run": True,
            }
        )
        arenas = {
            (a["role"], str(a["memory"]).lower()): a["used"] for a in AotConverter(config).convert().arenas
        }
    return [arenas[("scratch", "dtcm")], arenas[("constant", "dtcm")]]


def placement_saving_kws() -> list[int]:
    """KWS on the Apollo4 Plus with 24 KiB of DTCM: the cap, constant bytes in DTCM and SRAM,
    cycles saved."""
    cap_kib = 24
    with tempfile.TemporaryDirectory() as out:
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(MODELS / f"{SHORT['kws']}.tflite")},
                "module": {"path": out, "name": "m"},
                "platform": {"name": "apollo4p_evb"},
                "memory": {"constraints": [{"name": "dtcm", "max_size": f"{cap_kib}KiB"}, {"name": "sram"}]},
            }
        )
        module = AotConverter(config).convert().output
        placement = json.loads((module / "aot_report.json").read_text())["placement"]
    rows = {r["region"]: r["bytes"] for r in placement["regions"]}
    return [cap_kib, rows["aot_arena_const_dtcm"], rows["aot_arena_const_sram"], placement["cycles_saved"]]


def float_input_vww() -> Values:
    """The float-input VWW: its input and QUANTIZE output bytes, then its scratch at balanced, at
    size, at size with the input bound and at balanced with the input bound."""
    path = MODELS / "mlperf_vww_trained_float_input.tflite"
    scratch = []
    for goal, bind in (("balanced", False), ("size", False), ("size", True), ("balanced", True)):
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(path)},
                "module": {"path": "unused", "name": "m"},
                "optimization": {"goal": goal},
                "memory": {"bind_inputs": bind},
                "dry_run": True,
                "result_views": True,
            }
        )
        result = AotConverter(config).convert()
        scratch.append(sum(a["used"] for a in result.arenas if a["role"] == "scratch"))
        if not bind:  # the input's bytes as the arena holds them
            assert result.operators is not None and result.tensors is not None
            nbytes = {t.id: t.nbytes for t in result.tensors}
            quantize = [nbytes[result.operators[0].input_ids[0]], nbytes[result.operators[0].output_ids[0]]]
    return [*quantize, *scratch]


RECOMPUTED: dict[str, Callable[[], Values]] = {
    **{
        f"goal_bench.{m}.{g}": (lambda m=m, g=g: goal_row(m, g))
        for m in ("kws", "ic", "vww")
        for g in ("latency", "balanced", "size")
    },
    "goal_bench.ad": lambda: every_goal_row("ad"),
    **{f"scratch_by_goal.{m}": (lambda m=m: scratch_by_goal(m)) for m in ("kws", "ic", "vww", "vww96")},
    "scratch_by_goal.vww96_balanced": lambda: [converted("vww96", "balanced")["scratch"]],
    "kws_scratch_picture": kws_picture,
    "vww_stream_stage": vww_stream_stage,
    "vww_recompute_stage": vww_recompute_stage,
    "vww_scratch_picture": vww_picture,
    "size_constants.kws": lambda: [converted("kws", "size")["constant"]],
    "fc_folded_bias.kws": fc_folded_bias,
    "im2col.constants": im2col_constants,
    "litert_bindings_size": litert_bindings_size,
    "product_constants.kws": lambda: [products()[1][SHORT["kws"]]],
    "product_scratch": product_scratch,
    "streaming.m55": lambda: streaming_row("apollo510_evb"),
    "streaming.m4": lambda: streaming_row("apollo4p_evb"),
    "streaming.product": lambda: [products()[2]["scratch"], products()[2]["persistent"]],
    **{f"dsp_paths.{m}": (lambda m=m: dsp_paths(m)) for m in ("kws", "ic", "vww", "ad")},
    "im2col.kws": lambda: kws_first_layer("im2col.kws", 1),
    "size_first_layers.conv0": lambda: kws_first_layer("size_first_layers.conv0", 1),
    "fc_helium.own_loop": ad_totals,
    "fc_helium.pipelined": ad_pipelined,
    "f16_accumulation.speedup": f16_speedup,
    "balanced_over_latency": balanced_over_latency,
    "size_over_balanced": size_over_balanced,
    "size_over_balanced.m4": size_over_balanced_m4,
    "default_placement.kws": default_placement_kws,
    "placement_saving.kws_dtcm_24k": placement_saving_kws,
    "float_input_vww": float_input_vww,
}
"""Entry -> its numbers as a host run gives them (None: a position this file does not check,
measured by the entry's bench command)."""


@pytest.mark.parametrize("name", sorted(RECOMPUTED))
def test_a_cheap_figure_is_what_a_host_run_gives(name: str) -> None:
    expected = RECOMPUTED[name]()
    values = registered(name)
    assert len(expected) == len(values), name
    assert any(v is not None for v in expected)
    got = [value if want is not None else None for value, want in zip(values, expected, strict=True)]
    assert got == expected, f"{name}: docs/figures.json has {values}, a host run gives {expected}"


# ---------------------------------------------------------------------------------------------
# The KWS profile sample, re-run under QEMU.

PROFILED = ("kws_profile_sample",)


@pytest.mark.cross
def test_the_kws_profile_sample_is_what_helia_aot_profile_prints(tmp_path: Path) -> None:
    """docs/on-target-testing.md's sample output: rows 0, 1 and 11, the runtime, the totals and
    the module's bytes; the same run gives goal_bench's KWS balanced code and M55 instructions."""
    from helia_aot.testing import require_toolchain

    require_toolchain()
    run = subprocess.run(
        [
            str(Path(sys.executable).parent / "helia-aot"),
            "profile",
            "--model.path",
            str(ROOT / "examples" / "kws" / "kws_int8.tflite"),
            "--module.path",
            str(tmp_path / "out"),
            "--target",
            "m55",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    doc = json.loads(run.stdout)
    total = doc["total_cycles"]

    def row(op: dict) -> list[float]:
        return [op["instructions"], op["cycles"], round(100 * op["cycles"] / total, 1)]

    operators = doc["operators"]
    inference = doc["inference_cycles"]
    expected = [
        *row(operators[0]),
        *row(operators[1]),
        *row(operators[11]),
        round(
            100 * doc["runtime_cycles"] / total, 1
        ),  # the runtime's counts are bare numbers, its share a figure
        doc["total_instructions"],
        total,
        100.0,
        inference,
        doc["inference_instructions"],
        round(inference / doc["inference_instructions"], 2),
        round(inference / (doc["clock_mhz"] * 1e3), 3),
        doc["code_bytes"],
        doc["constant_bytes"],
        doc["ram_bytes"],
    ]
    assert registered("kws_profile_sample") == expected
    assert registered("goal_bench.kws.balanced")[3:5] == [doc["code_bytes"], doc["inference_instructions"]]
