"""``helia-aot profile`` (issue 17 item 4): instructions per operator of KWS int8 under QEMU.

One conversion, cross-build and QEMU run (module scope) serves the JSON checks: the schema, one
row per operator of the plan in execution order, and the identity the command defines,
``sum(operators) + runtime == total``, with total close to the callback-free inference. The text
table is checked to add up the same way. Attribution and the failures (missing tools, static
schedule) need no toolchain.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helia_aot.cli.app import app
from helia_aot.errors import ProfileError
from helia_aot.testing.cycles import platform_at_clock, platform_named
from helia_aot.testing.profiling import (
    PROFILE_SCHEMA_VERSION,
    ModuleProfile,
    OperatorProfile,
    attribute,
    format_profile,
)
from typer.testing import CliRunner

KWS = Path(__file__).resolve().parents[1] / "data" / "models" / "mlperf_kws_dscnn_int8.tflite"
STARTED, FINISHED = 2, 3

runner = CliRunner()


@pytest.fixture(scope="module")
def kws_run(tmp_path_factory) -> tuple[dict, str]:
    """The --json document and the --html page of one profile run."""
    from helia_aot.testing import require_toolchain

    require_toolchain()
    work = tmp_path_factory.mktemp("profile")
    args = ["profile", "--model.path", str(KWS), "--module.path", str(work / "kws"), "--target", "m55"]
    result = runner.invoke(app, [*args, "--json", "--html", str(work / "kws.html")])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), (work / "kws.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def kws_profile(kws_run) -> dict:
    return kws_run[0]


@pytest.mark.cross
def test_profile_html_has_a_bar_per_operator_adding_up_to_the_total(kws_run):
    from helia_aot.testing.profile_html import BAR_WIDTH

    doc, page = kws_run
    bars = re.findall(r'data-operator="([^"]*)" data-cycles="(\d+)".*?<rect [^>]*width="([\d.]+)"', page)
    labels = [html.unescape(label) for label, _, _ in bars]
    assert labels == [f"{op['index']} {op['op_type']} {op['id']}" for op in doc["operators"]] + ["(runtime)"]
    cycles = [int(c) for _, c, _ in bars]
    assert cycles == [op["cycles"] for op in doc["operators"]] + [doc["runtime_cycles"]]
    assert sum(cycles) == doc["total_cycles"]
    widths = [float(w) for _, _, w in bars]
    assert max(widths) == BAR_WIDTH
    for width, count in zip(widths, cycles, strict=True):
        assert abs(width - BAR_WIDTH * count / max(cycles)) <= 0.006
    assert (
        f'<td class="n">{doc["total_cycles"]:,}</td><td class="n">{doc["total_instructions"]:,}</td>' in page
    )


@pytest.mark.cross
def test_profile_json_schema_and_operators(kws_profile):
    doc = kws_profile
    assert doc["schema_version"] == PROFILE_SCHEMA_VERSION
    assert set(doc) == {
        "schema_version", "model", "module_prefix", "target", "cpu", "opt", "operators",
        "runtime_instructions", "total_instructions", "inference_instructions",
        "code_bytes", "constant_bytes", "ram_bytes",
        "runtime_cycles", "total_cycles", "inference_cycles", "inference_cpi", "inference_ms",
        "platform", "clock_mhz", "wait_states", "unknown_instructions",
    }  # fmt: skip
    assert (doc["platform"], doc["clock_mhz"], doc["unknown_instructions"]) == ("apollo510_evb", 250.0, [])
    declared = platform_named("apollo510_evb")
    assert doc["wait_states"] == {memory.value: count for memory, count in declared.wait_states}
    assert (doc["model"], doc["target"], doc["cpu"], doc["opt"]) == (KWS.name, "m55", "cortex-m55", "-O2")
    ops = doc["operators"]
    assert [op["index"] for op in ops] == list(range(12))  # KWS DS-CNN: 12 operators
    assert [op["op_type"] for op in ops[:2]] == ["CONV_2D", "DEPTHWISE_CONV_2D"]
    assert [op["op_type"] for op in ops[-3:]] == ["AVERAGE_POOL_2D", "FULLY_CONNECTED", "SOFTMAX"]
    for op in ops:
        assert set(op) == {"index", "id", "op_type", "kernel", "instructions", "cycles", "cpi", "ms"}
        assert op["instructions"] > 0 and op["cycles"] > 0 and op["id"].startswith("0:")
        assert op["cpi"] == round(op["cycles"] / op["instructions"], 4)
        assert op["ms"] == round(op["cycles"] / 250e3, 6)
    # Weights (about 22 kB of int8 filters) are constants; arenas are RAM.
    assert doc["constant_bytes"] > 20_000 and doc["code_bytes"] > 1_000 and doc["ram_bytes"] > 1_000


@pytest.mark.cross
def test_profile_operator_sum_equals_total(kws_profile):
    doc = kws_profile
    operators = sum(op["instructions"] for op in doc["operators"])
    assert operators + doc["runtime_instructions"] == doc["total_instructions"]
    # The runtime row is the schedule loop and the callback: tens of instructions per operator.
    assert 0 < doc["runtime_instructions"] < 60 * len(doc["operators"])
    # Without the callback the same inference costs about the operators' sum: each operator's
    # count holds its call and a few instructions of the callback's dispatch around it.
    assert abs(doc["inference_instructions"] - operators) <= 20 * len(doc["operators"])
    assert doc["inference_instructions"] < doc["total_instructions"]
    # The same identity holds for the modeled cycles (issue 30): one run, attributed alike.
    cycles = sum(op["cycles"] for op in doc["operators"])
    assert cycles + doc["runtime_cycles"] == doc["total_cycles"]
    assert 0 < doc["inference_cycles"] < doc["total_cycles"]
    assert doc["inference_cpi"] == round(doc["inference_cycles"] / doc["inference_instructions"], 4)
    assert doc["inference_ms"] == round(doc["inference_cycles"] / 250e3, 6)


@pytest.mark.cross
def test_profile_table_adds_up(kws_profile):
    doc = kws_profile
    derived = ("operators", "schema_version", "inference_cpi", "inference_ms")
    profile = ModuleProfile(
        **{k: v for k, v in doc.items() if k not in derived},
        operators=[
            OperatorProfile(**{k: v for k, v in op.items() if k not in ("cpi", "ms")})
            for op in doc["operators"]
        ],
    )
    text = format_profile(profile)
    rows = [line for line in text.splitlines() if line.rstrip().endswith("%")]
    # row: ... instructions cycles cpi ms share%
    counts = [int(line.rsplit(None, 5)[-5].replace(",", "")) for line in rows]
    cycles = [int(line.rsplit(None, 5)[-4].replace(",", "")) for line in rows]
    *parts, total = counts
    assert len(parts) == 12 + 1  # the operators and the runtime row
    assert sum(parts) == total == doc["total_instructions"]
    *cycle_parts, cycle_total = cycles
    assert sum(cycle_parts) == cycle_total == doc["total_cycles"]
    assert f"{doc['inference_instructions']:,} instructions" in text
    assert f"{doc['inference_cycles']:,} cycles" in text and "at 250 MHz" in text


def test_attribute_splits_nested_operators_and_runtime():
    # op 0 runs a body with op 1 inside it (an IF); op 2 follows at top level.
    events = [(0, STARTED), (1, STARTED), (1, FINISHED), (0, FINISHED), (2, STARTED), (2, FINISHED)]
    regions = [5, 100, 40, 7, 3, 60, 4]
    per_op, runtime = attribute(regions, events)
    assert per_op == {0: 107, 1: 40, 2: 60}
    assert runtime == 5 + 3 + 4
    assert sum(per_op.values()) + runtime == sum(regions)


def test_attribute_rejects_inconsistent_runs():
    with pytest.raises(ProfileError, match="count regions"):
        attribute([1, 2], [(0, STARTED), (0, FINISHED)])
    with pytest.raises(ProfileError, match="without having started"):
        attribute([1, 2, 3], [(0, STARTED), (1, FINISHED)])


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "helia_aot", "profile", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def test_profile_without_cross_compiler_is_a_typed_error(tmp_path):
    run = _cli(
        "--model.path", str(KWS), "--module.path", str(tmp_path / "m"),
        env={"HELIA_AOT_CROSS_PREFIX": "/nonexistent/arm-none-eabi-", "COLUMNS": "200"},
    )  # fmt: skip
    assert run.returncode == 1, run.stderr
    assert "Error: cannot profile: missing /nonexistent/arm-none-eabi-gcc" in run.stderr
    assert "install_cross_toolchain.sh" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "m").exists()  # refused before converting


def test_profile_refuses_static_schedule(tmp_path):
    from helia_aot.testing import require_toolchain

    require_toolchain()
    result = runner.invoke(
        app,
        [
            "profile",
            "--model.path",
            str(KWS),
            "--module.path",
            str(tmp_path / "m"),
            "--module.schedule",
            "static",
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 2  # a configuration problem (the documented exit-code table)
    assert "module.schedule 'static'" in result.output and "--module.schedule table" in result.output


def test_profile_refuses_modules_it_cannot_run(tmp_path):
    from helia_aot.testing import require_toolchain

    require_toolchain()
    result = runner.invoke(
        app,
        [
            "profile",
            "--model.path",
            str(KWS),
            "--module.path",
            str(tmp_path / "m"),
            "--no-memory.allocate-arenas",
        ],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 2  # a configuration problem (the documented exit-code table)
    assert "memory.allocate_arenas is off" in result.output and "Traceback" not in result.output


@pytest.mark.cross
def test_profile_runs_on_the_default_archive_module_path(tmp_path, monkeypatch):
    """The README's command gives no --module.path: the default ./output.zip is an archive, so the
    module is built in a temporary folder and nothing is left in the working directory."""
    from helia_aot.testing import require_toolchain

    require_toolchain()
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(
        app, ["profile", "--model.path", str(KWS), "--target", "m55"], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    assert "output.zip is an archive: profiling a module built in a temporary folder" in result.stderr
    assert "inference" in result.stdout.lower()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.cross
def test_profile_clock_rescales_wait_states(tmp_path):
    """--clock-mhz runs the platform at that clock: wait states and milliseconds follow it.

    The M4 pays MRAM's wait states on every weight access (no data cache), so the run uses them.
    """
    from helia_aot.testing import require_toolchain

    require_toolchain()
    result = runner.invoke(
        app,
        ["profile", "--model.path", str(KWS), "--module.path", str(tmp_path / "m"), "--target", "m4",
         "--clock-mhz", "96", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert (doc["cpu"], doc["platform"], doc["clock_mhz"]) == ("cortex-m4", "apollo4p_evb", 96.0)
    declared = platform_named("apollo4p_evb")
    slow = platform_at_clock(declared, 96)
    assert doc["wait_states"] == {memory.value: count for memory, count in slow.wait_states}
    assert doc["wait_states"]["mram"] < declared.wait_states_of("mram")  # 192 MHz -> 96 MHz
    assert doc["inference_ms"] == round(doc["inference_cycles"] / 96e3, 6)
    assert doc["unknown_instructions"] == []


def test_profile_clock_override_rescales_the_platform():
    """The platform the profile times with is the declared one run at --clock-mhz (no QEMU)."""
    from helia_aot.testing.profiling import _timing_platform

    declared = platform_named("apollo510_evb")
    plan = type("Plan", (), {"platform": declared})()
    assert _timing_platform(plan, "cortex-m55", None, None) == declared
    slow = _timing_platform(plan, "cortex-m55", None, 96)
    assert (slow.clock_mhz, slow.wait_states) == (96, platform_at_clock(declared, 96).wait_states)
    assert slow.wait_states_of("mram") < declared.wait_states_of("mram")
    with pytest.raises(ProfileError, match="--clock-mhz must be positive"):
        _timing_platform(plan, "cortex-m55", None, 0)


def test_profile_rejects_unknown_target(tmp_path):
    result = runner.invoke(
        app, ["profile", "--model.path", str(KWS), "--target", "m7"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 2
    assert "'m7' is not one of m55, m4" in result.output


@pytest.mark.parametrize("flag", ["--memory.shared-arena.enabled", "--memory.bind-inputs"])
def test_profile_refuses_buffers_the_application_binds(flag, tmp_path):
    from helia_aot.testing import require_toolchain

    require_toolchain()
    arguments = ["profile", "--model.path", str(KWS), "--module.path", str(tmp_path / "m"), flag]
    result = runner.invoke(app, arguments, env={"COLUMNS": "200"})
    assert result.exit_code == 2  # a configuration problem, found before converting
    assert "leaves them to the application" in result.output and "Traceback" not in result.output
