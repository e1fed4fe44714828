"""``helia-aot profile --html``'s page (helia_aot.testing.profile_html) on profiles hypothesis
draws: every operator and the runtime get a bar, bar lengths are proportional to their modeled
cycles (the longest fills BAR_WIDTH), the numbers beside them and the totals table are the
profile's, and the page is self-contained and deterministic. The page of a real QEMU profile is
checked in tests/e2e/test_profile_command.py."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from helia_aot.testing.profile_html import BAR_WIDTH, render_profile_html, write_profile_html
from helia_aot.testing.profiling import RUNTIME, ModuleProfile, OperatorProfile
from hypothesis import given, settings
from hypothesis import strategies as st

BAR = re.compile(
    r'<g data-operator="([^"]*)" data-cycles="(\d+)" data-instructions="(\d+)">.*?'
    r'<rect class="(\w+)" x="[\d.]+" y="[\d.]+" width="([\d.]+)"',
    re.DOTALL,
)
TOTAL = re.compile(r'<tr><td>([^<]*)</td><td class="n">([\d,]+)</td><td class="n">([\d,]+)</td>')

counts = st.tuples(st.integers(1, 10**7), st.integers(0, 4)).map(lambda t: (t[0], t[0] + t[0] * t[1]))


def _profile(ops: list[tuple[int, int]], runtime: tuple[int, int]) -> ModuleProfile:
    operators = [
        OperatorProfile(i, f"0:{i}", ["CONV_2D", "ADD", "SOFTMAX"][i % 3], None, n, c)
        for i, (n, c) in enumerate(ops)
    ]
    return ModuleProfile(
        model="m<&>.tflite",
        module_prefix="m",
        target="m55",
        cpu="cortex-m55",
        opt="-O2",
        operators=operators,
        runtime_instructions=runtime[0],
        total_instructions=sum(n for n, _ in ops) + runtime[0],
        inference_instructions=sum(n for n, _ in ops),
        code_bytes=1000,
        constant_bytes=2000,
        ram_bytes=3000,
        runtime_cycles=runtime[1],
        total_cycles=sum(c for _, c in ops) + runtime[1],
        inference_cycles=sum(c for _, c in ops),
        platform="apollo510_evb",
        clock_mhz=250.0,
    )


@settings(max_examples=40, deadline=None)
@given(ops=st.lists(counts, min_size=1, max_size=30), runtime=counts)
def test_every_operator_has_a_bar_proportional_to_its_cycles(ops, runtime):
    profile = _profile(ops, runtime)
    page = render_profile_html(profile)
    bars = BAR.findall(page)
    expected = [f"{op.index} {op.op_type} {op.id}" for op in profile.operators] + [RUNTIME]
    assert [unescape(label) for label, *_ in bars] == expected
    assert [int(c) for _, c, *_ in bars] == [op.cycles for op in profile.operators] + [runtime[1]]
    assert [int(n) for _, _, n, *_ in bars] == [op.instructions for op in profile.operators] + [runtime[0]]
    assert [cls for *_, cls, _ in bars] == ["bar"] * len(ops) + ["runtime"]
    widths = [float(w) for *_, w in bars]
    cycles = [int(c) for _, c, *_ in bars]
    longest = max(cycles)
    assert max(widths) == BAR_WIDTH
    for width, count in zip(widths, cycles, strict=True):
        assert abs(width - BAR_WIDTH * count / longest) <= 0.005 + 1e-9
    # The bars add up to the profile's total, as the totals table says.
    assert sum(cycles) == profile.total_cycles
    totals = {name: (int(c.replace(",", "")), int(n.replace(",", ""))) for name, c, n in TOTAL.findall(page)}
    assert totals["total (profiled run)"] == (profile.total_cycles, profile.total_instructions)
    assert totals["operators"][0] + totals[RUNTIME][0] == profile.total_cycles
    assert totals["inference without the callback"] == (
        profile.inference_cycles,
        profile.inference_instructions,
    )


def test_the_page_is_self_contained_escaped_and_deterministic(tmp_path: Path):
    profile = _profile([(100, 250), (40, 40)], (10, 12))
    path = write_profile_html(profile, tmp_path / "sub" / "profile.html")
    page = path.read_text(encoding="utf-8")
    assert page == render_profile_html(profile)
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 1
    assert "<script" not in page and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "m&lt;&amp;&gt;.tflite" in page and "m<&>" not in page
    assert "250 cycles · 100 instr · 2.50 cpi" in page
