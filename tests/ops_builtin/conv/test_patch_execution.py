"""Goal ``size``: patch-based execution of the early convolutions (issue 18 item 3).

Why: a stage of consecutive CONV_2D / DEPTHWISE_CONV_2D layers may run band by band over its
last output, each layer on the rows the next one's windows read (recomputing the halos), so only
the stage's output is ever whole. That changes which rows each kernel call sees and where the
intermediates live, never a result: every element is computed from the same taps as in one
whole-tensor call. The band arithmetic is checked against a brute-force reading of the windows;
random chains (strides, dilations, paddings, channel counts, with pooling and elementwise layers
around the stage) run in patches of every band height and must match the reference interpreter
bit for bit (float32 within the usual bound), under ASan/UBSan on the host and, for two chains,
on the Cortex-M55 under QEMU; on VWW the planner picks the stage and band height itself, the
stage output is laid over the consumed input, and no two buffers live at once share a byte.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot.memory.patches import (
    band_rows,
    buffer_rows,
    extra_rows,
    held_rows,
    lands_in_place,
    recompute_calls,
    stream_calls,
)
from helia_aot.pipeline import patch_plan
from helia_aot.testing import cross_build_module, run_module_test_case, run_qemu
from helia_aot_ops_builtin.conv.row_stream import RowGeometry
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ops_builtin.conv.test_memory_size_goal import _out, _report, build_chain, convert, draw_window_layer

# -- the band arithmetic ------------------------------------------------------------------------


@st.composite
def geometries(draw: st.DrawFn) -> list[RowGeometry]:
    """One to four windowed layers (heights, strides, dilations, SAME/VALID) that chain."""
    h = draw(st.integers(3, 40))
    layers = []
    for _ in range(draw(st.integers(1, 4))):
        k, s, d = (
            draw(st.sampled_from([1, 2, 3, 5])),
            draw(st.sampled_from([1, 2])),
            draw(st.sampled_from([1, 2])),
        )
        padding = draw(st.sampled_from(["SAME", "VALID"]))
        oh = _out(h, k, s, d, padding)
        if oh < 1:
            break
        window = (k - 1) * d + 1
        pad_top = max((oh - 1) * s + window - h, 0) // 2 if padding == "SAME" else 0
        width = draw(st.integers(1, 5))
        layers.append(RowGeometry(h, oh, width * 3, width * draw(st.integers(1, 4)), s, pad_top, window))
        h = oh
    return layers or [RowGeometry(h, h, 3, 3, 1, 0, 1)]


def _reads(layer: RowGeometry, rows: range) -> set[int]:
    """Input rows output rows ``rows`` read, tap by tap (padding rows dropped)."""
    taps = range(layer.window_rows)
    return {
        r * layer.stride - layer.pad_top + t
        for r in rows
        for t in taps
        if 0 <= r * layer.stride - layer.pad_top + t < layer.input_height
    }


@settings(max_examples=60, deadline=None)
@given(layers=geometries(), rows_per_band=st.integers(1, 6))
def test_each_band_computes_exactly_the_rows_the_next_layer_reads(layers, rows_per_band):
    bands = band_rows(layers, rows_per_band)
    last = layers[-1]
    covered = [c for band in bands for c in [band[-1]]]
    # The last layer's bands tile its output, in order, once.
    assert [r for c in covered for r in range(c.out_start, c.out_start + c.out_rows)] == list(
        range(last.output_height)
    )
    for band in bands:
        for j, (layer, call) in enumerate(zip(layers, band, strict=True)):
            read = _reads(layer, range(call.out_start, call.out_start + call.out_rows))
            # The slice handed to the kernel runs from the first row read to the last (a stride
            # above the window skips rows in between: the slice is contiguous all the same).
            assert (min(read), max(read)) == (call.in_start, call.in_start + call.in_rows - 1)
            # Its top padding puts output row out_start's first tap where the whole call has it.
            assert call.in_start - call.pad_top == call.out_start * layer.stride - layer.pad_top
            if j:
                previous = band[j - 1]
                assert (previous.out_start, previous.out_rows) == (call.in_start, call.in_rows)
    held = buffer_rows(bands)
    assert all(held[j] >= call.out_rows for band in bands for j, call in enumerate(band[:-1]))
    # Each layer computes, over all bands, the rows read at least once (a stride above the
    # window may leave rows nobody reads: those are not computed at all) plus the halos.
    halos = extra_rows(layers, bands)
    assert halos[-1] == 0
    for j, layer in enumerate(layers[1:]):
        needed = _reads(layer, range(layer.output_height))
        assert halos[j] >= len(needed) - layers[j].output_height


@settings(max_examples=60, deadline=None)
@given(layers=geometries(), rows_per_band=st.integers(1, 6))
def test_in_place_bands_write_only_bytes_no_later_band_reads(layers, rows_per_band):
    bands = band_rows(layers, rows_per_band)
    assume(lands_in_place(layers, bands))  # a case that does not land in place has nothing to check
    first, last = layers[0], layers[-1]
    for k, band in enumerate(bands):
        written = range(
            band[-1].out_start * last.output_row_bytes,
            (band[-1].out_start + band[-1].out_rows) * last.output_row_bytes,
        )
        for later in bands[k + 1 :]:
            read = range(
                later[0].in_start * first.input_row_bytes,
                (later[0].in_start + later[0].in_rows) * first.input_row_bytes,
            )
            assert not (written.start < read.stop and read.start < written.stop), (k, written, read)


@settings(max_examples=60, deadline=None)
@given(layers=geometries(), rows_per_band=st.integers(1, 6), streaming=st.booleans())
def test_the_band_loop_reads_the_right_rows_at_the_right_places(layers, rows_per_band, streaming):
    """Play the emitted loop on row labels: each buffer is a list of the rows it holds, moved up
    by ``drop`` keeping ``keep``, new rows written at their offset; every call must find the rows
    its windows read at the offsets the table gives, and streaming computes no row twice."""
    bands = stream_calls(layers, rows_per_band) if streaming else recompute_calls(layers, rows_per_band)
    size = held_rows(bands)
    buffers: list[list[int | None]] = [[None] * n for n in size]
    computed: list[list[int]] = [[] for _ in layers]
    out: list[int] = []
    for band in bands:
        for j, (layer, call) in enumerate(zip(layers, band, strict=True)):
            if j < len(layers) - 1 and call.keep and call.drop:
                buf = buffers[j]
                buf[: call.keep] = buf[call.drop : call.drop + call.keep]
            if not call.out_rows:
                continue
            rows = range(call.out_start, call.out_start + call.out_rows)
            read = _reads(layer, rows)
            assert (min(read), max(read)) == (call.in_start, call.in_start + call.in_rows - 1)
            if j:
                source = buffers[j - 1]
                offset = call.in_start - band[j - 1].buffer_start
                held = source[offset : offset + call.in_rows]
                assert held == list(range(call.in_start, call.in_start + call.in_rows)), (j, held)
            computed[j] += list(rows)
            if j == len(layers) - 1:
                out += list(rows)
            else:
                at = call.out_start - call.buffer_start
                buffers[j][at : at + call.out_rows] = list(rows)
    assert out == list(range(layers[-1].output_height))
    if streaming:
        assert all(len(c) == len(set(c)) for c in computed)
        assert all(h <= 0 for h in extra_rows(layers, bands))


def test_a_single_layer_never_writes_over_its_own_input():
    layer = RowGeometry(8, 8, 16, 8, 1, 1, 3)
    assert not lands_in_place([layer], band_rows([layer], 1))


# -- random chains, whole and in patches ----------------------------------------------------------


@st.composite
def patch_chains(draw: st.DrawFn) -> dict:
    """Two to four convolutions / depthwise layers first (the stage), then maybe a pooling or
    elementwise layer and one more windowed layer; int8 mostly, int16 and float32 too."""
    dtype = draw(st.sampled_from(["int8", "int8", "int16", "float32"]))
    h, w, c = draw(st.integers(6, 14)), draw(st.integers(3, 7)), draw(st.integers(1, 4))
    h0, w0, c0 = h, w, c
    layers: list[dict] = []
    kinds = [draw(st.sampled_from(["conv", "depthwise"])) for _ in range(draw(st.integers(2, 4)))]
    kinds += draw(st.sampled_from([[], ["pool"], ["add"], ["add", "conv"], ["pool", "depthwise"]]))
    for kind in kinds:
        if kind == "add":
            layers.append({"kind": "add"})
            continue
        spec, oh, ow = draw_window_layer(draw, kind, h, w, c, max_out_c=2 * c + 2)
        if min(oh, ow) < 2:
            spec["padding"], oh, ow = "SAME", -(-h // spec["stride"]), -(-w // spec["stride"])
        c = spec.get("out_c", c)
        layers.append(spec)
        h, w = oh, ow
    return {
        "dtype": dtype,
        "input": (h0, w0, c0),
        "layers": layers,
        "seed": draw(st.integers(0, 99)),
        "rows_per_band": draw(st.integers(1, 3)),
        "mode": draw(st.sampled_from(["recompute", "stream"])),
    }


def _stage_length(spec: dict) -> int:
    windowed = 0
    for layer in spec["layers"]:
        if layer["kind"] not in ("conv", "depthwise"):
            break
        windowed += 1
    return min(windowed, patch_plan.MAX_STAGE_LAYERS)


def convert_in_patches(model: Path, out: Path, spec: dict, core: str | None = None):
    """Convert at size with the first chain forced into patches of the spec's band height."""
    saved = patch_plan.FORCE_ROWS_PER_BAND, patch_plan.FORCE_MODE
    patch_plan.FORCE_ROWS_PER_BAND, patch_plan.FORCE_MODE = spec["rows_per_band"], spec["mode"]
    try:
        kernel = "specialized" if core else None
        return convert(model, out, spec["dtype"], kernel=kernel, prefix="m")
    finally:
        patch_plan.FORCE_ROWS_PER_BAND, patch_plan.FORCE_MODE = saved


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=patch_chains())
def test_random_chains_in_patches_match_the_reference(spec, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("patches")
    model = build_chain(spec, *spec["input"], tmp / "model.tflite")
    result = convert_in_patches(model, tmp / "out", spec)
    report = _report(result)
    techniques = [op["memory_technique"] for op in report["operators"]]
    assert techniques[: _stage_length(spec)] == ["patch"] * _stage_length(spec), techniques
    (stage,) = report["schedule"]["patches"]
    assert stage["rows_per_band"] <= spec["rows_per_band"] and stage["mode"] == spec["mode"]
    run = run_module_test_case(result.output, tmp / "build", prefix=result.prefix)
    assert run.passed, f"{spec}\n{run.stdout}\n{run.stderr[-3000:]}"


CROSS_CHAINS = {
    "vww_front": {
        "dtype": "int8",
        "input": (20, 12, 3),
        "seed": 7,
        "rows_per_band": 1,
        "mode": "recompute",
        "layers": [
            {"kind": "conv", "k": 3, "stride": 2, "dilation": 1, "padding": "SAME", "out_c": 8},
            {"kind": "depthwise", "k": 3, "stride": 1, "dilation": 1, "padding": "SAME"},
            {"kind": "conv", "k": 1, "stride": 1, "dilation": 1, "padding": "SAME", "out_c": 16},
            {"kind": "depthwise", "k": 3, "stride": 2, "dilation": 1, "padding": "SAME"},
            {"kind": "pool", "k": 2, "stride": 2, "dilation": 1, "padding": "VALID", "max": False},
        ],
    },
    "dilated_valid": {
        "dtype": "int8",
        "input": (16, 9, 4),
        "seed": 19,
        "rows_per_band": 2,
        "mode": "stream",
        "layers": [
            {"kind": "depthwise", "k": 3, "stride": 1, "dilation": 2, "padding": "SAME"},
            {"kind": "conv", "k": 3, "stride": 2, "dilation": 1, "padding": "VALID", "out_c": 12},
            {"kind": "conv", "k": 1, "stride": 1, "dilation": 1, "padding": "SAME", "out_c": 20},
            {"kind": "add"},
        ],
    },
}
"""A VWW-like front (3x3/2, depthwise, pointwise to 16, depthwise /2) in one-row bands recomputing
their halos, laid over its input, and a dilated depthwise into a VALID stride-2 convolution and a
widening pointwise convolution streaming two-row bands (the Helium fast paths called on slices
of rows, the kept rows moved up between bands)."""


@pytest.mark.cross
@pytest.mark.parametrize("name", sorted(CROSS_CHAINS))
def test_chains_in_patches_match_the_reference_on_the_m55(name, tmp_path):
    spec = CROSS_CHAINS[name]
    model = build_chain(spec, *spec["input"], tmp_path / "model.tflite")
    result = convert_in_patches(model, tmp_path / "out", spec, core="m55")
    assert [op["memory_technique"] for op in _report(result)["operators"]].count("patch") == _stage_length(
        spec
    )
    elf = cross_build_module(result.output, tmp_path / "m55", "m55", prefix="m")
    run = run_qemu(elf, "m55", timeout=300, count=False)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout


# -- the planner's choice --------------------------------------------------------------------------


def test_the_planner_runs_a_vww_like_front_in_patches_by_itself(tmp_path):
    """No forcing: 32x32x3 -> 3x3/2 to 8 -> depthwise -> pointwise to 16 -> depthwise /2 (8x8x16)
    -> pointwise to 32. Layer by layer the pointwise to 16 holds its 2,048 B input and 4,096 B
    output (6,144 B). At size the planner streams the first two layers in one-row bands over the
    consumed input (3,072 B and a 384 B patch buffer: no extra MACs, within 1/16 of recomputing
    all four layers' halos at 4,224 B); the pointwise to 16 then writes its output over its
    input row by row, and so does the stride-2 depthwise after it: 4,352 B. Both modules match
    the reference; the report, the plan, the generated code and the HTML picture say what happened."""
    spec = {
        "dtype": "int8",
        "seed": 5,
        "layers": [
            {"kind": "conv", "k": 3, "stride": 2, "dilation": 1, "padding": "SAME", "out_c": 8},
            {"kind": "depthwise", "k": 3, "stride": 1, "dilation": 1, "padding": "SAME"},
            {"kind": "conv", "k": 1, "stride": 1, "dilation": 1, "padding": "SAME", "out_c": 16},
            {"kind": "depthwise", "k": 3, "stride": 2, "dilation": 1, "padding": "SAME"},
            {"kind": "conv", "k": 1, "stride": 1, "dilation": 1, "padding": "SAME", "out_c": 32},
        ],
    }
    model = build_chain(spec, 32, 32, 3, tmp_path / "model.tflite")
    arenas = {}
    for goal in ("balanced", "size"):
        result = convert(model, tmp_path / goal, "int8", goal, html=True, prefix="m")
        run = run_module_test_case(result.output, tmp_path / f"build_{goal}", prefix=result.prefix)
        assert run.passed, run.stdout + run.stderr[-3000:]
        (scratch,) = [a for a in result.arenas if a["role"] == "scratch"]
        arenas[goal] = scratch["used"]
        report = _report(result)
        page = (result.output / "m_report.html").read_text(encoding="utf-8")
        if goal == "balanced":
            assert report["schedule"]["patches"] == [] and 'class="patch"' not in page
            continue
        (stage,) = report["schedule"]["patches"]
        techniques = [op["memory_technique"] for op in report["operators"]]
        assert techniques == ["patch", "patch", "in_place", "in_place", None]
        assert stage["operators"] == [op["id"] for op in report["operators"][:2]]
        assert stage["in_place"]
        assert (stage["mode"], stage["extra_macs"], stage["buffer_bytes"]) == ("stream", 0, 384)
        assert report["schedule"]["extra_macs"] == 0
        assert page.count('<path class="patch"') == 1 and f"{stage['bands']} patches" in page
        # The stage's first operator runs the band loop; the other runs nothing.
        sources = sorted((result.output / "src").glob("m_*_[0-9].c"))
        loops = [p.name for p in sources if "_bands[" in p.read_text()]
        assert loops == ["m_conv_2d_0.c"]
        assert "nothing left to do" in (result.output / "src" / "m_depthwise_conv_2d_1.c").read_text()
    assert arenas == {"balanced": 6_144, "size": 4_352}
