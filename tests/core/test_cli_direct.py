"""A plain ``convert`` command line parsed without typer reads exactly as click reads it.

``helia_aot.cli.direct`` parses the common command lines itself so a conversion does not import
typer; every line it takes must give ``convert`` the values click would, and every line it is not
sure of must go to the typer app (so usage errors keep click's messages and exit codes).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from helia_aot.cli import app
from helia_aot.cli.direct import convert_parameters
from helia_aot.cli.flags import cli_keys, is_bool, kebab_flag, overrides_from_flags
from hypothesis import given, settings
from hypothesis import strategies as st

KWS = Path(__file__).resolve().parents[1] / "data" / "models" / "mlperf_kws_dscnn_int8.tflite"
LAZY = (
    "subprocess",  # ctypes.util imported it for the C library lookup a few activation tables need
    "flatbuffers.flexbuffers",  # GRU fusion's custom options
    "helia_aot.views",  # the ConversionResult's views (result_views: true)
    "helia_aot.pipeline.result_views",
    "xml.etree.ElementTree",  # the CMSIS-Pack description (module.type cmsis_pack)
)
"""Modules a KWS conversion from the command line does not import (besides typer and click)."""


def click_parameters(args: list[str]) -> dict[str, Any]:
    """What click hands ``convert`` for ``args`` (the words after ``convert``)."""
    command = typer.main.get_command(app).commands["convert"]  # type: ignore[attr-defined]
    return dict(command.make_context("convert", list(args)).params)


def _plain(params: dict[str, Any]) -> dict[str, Any]:
    # A flag not given is None or an empty sequence to click; both mean "not given" to convert.
    return {
        name: list(value) if isinstance(value, (list, tuple)) else value
        for name, value in params.items()
        if value is not None and value != [] and value != ()
    }


KEYS = cli_keys()
VALUES = ["kws.tflite", "out/", "greedy", "3", "true", "no", "mcu", "[a, b]", "x=y", "", '{"a": 1}']
NOISE = ["-h", "--nope", "--model.pth", "--", "-", "-1", "word"]


def flag_tokens(key: Any, draw: st.DrawFn) -> list[str]:
    """One flag as a user types it: either spelling, a value as the next word or after ``=``,
    list flags with zero to three values, booleans bare, negated or with a word."""
    flag = draw(st.sampled_from([kebab_flag(key.key), f"--{key.key}"]))
    if is_bool(key):
        form = draw(st.sampled_from(["bare", "negated", "word", "inline"]))
        word = draw(st.sampled_from(["true", "false", "yes", "off"]))
        return {
            "bare": [flag],
            "negated": ["--no-" + flag[2:]],
            "word": [flag, word],
            "inline": [f"{flag}={word}"],
        }[form]
    if key.is_list:
        return [flag, *draw(st.lists(st.sampled_from(VALUES), max_size=3))]
    value = draw(st.sampled_from(VALUES))
    return [f"{flag}={value}"] if draw(st.booleans()) else [flag, value]


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    """Up to six different flags, and now and then a token click rejects or reads differently."""
    keys = draw(st.lists(st.sampled_from(KEYS), unique_by=lambda key: key.key, max_size=6))
    tokens = [token for key in keys for token in flag_tokens(key, draw)]
    if draw(st.integers(0, 4)) == 0:
        tokens.insert(draw(st.integers(0, len(tokens))), draw(st.sampled_from(NOISE)))
    return tokens


@settings(max_examples=25, deadline=None, derandomize=True)
@given(command_lines())
def test_every_line_parsed_directly_gives_what_click_gives(tokens: list[str]) -> None:
    direct = convert_parameters(["convert", *tokens])
    if direct is None:
        return  # the typer app parses it: nothing of the direct parser's to compare
    assert _plain(direct) == _plain(click_parameters(tokens))
    assert overrides_from_flags(direct) == overrides_from_flags(click_parameters(tokens))


@pytest.mark.parametrize(
    "tokens",
    [
        ["--model.path", "kws.tflite", "--module.path", "out", "--force"],
        ["--model.path=kws.tflite", "--module.path", "out", "--no-force", "--verbose", "0"],
        ["--platform.capabilities", "mcu", "dsp", "--platform.capabilities", "mve", "--test.enabled", "yes"],
        ["--transforms", '{"name": "fold"}', "--platform.capabilities", "--module.name="],
        ["--memory.dump_residency_json", "false", "--log-file", "run.log", "--model.path", "a=b.tflite"],
    ],
)
def test_common_lines_are_parsed_directly_as_click_parses_them(tokens: list[str]) -> None:
    direct = convert_parameters(["convert", *tokens])
    assert direct is not None
    assert direct == {name: direct.get(name) for name in click_parameters(tokens)}
    assert _plain(direct) == _plain(click_parameters(tokens))


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["version"],
        ["--version", "convert"],
        ["convert", "--help"],
        ["convert", "-h"],
        ["convert", "--nope"],
        ["convert", "--model.pth", "kws.tflite"],
        ["convert", "kws.tflite"],
        ["convert", "--model.path"],
        ["convert", "--model.path", "-weird.tflite"],
        ["convert", "--model.path", "a", "--model.path", "b"],
        ["convert", "--force", "--no-force"],
        ["convert", "--force", "maybe"],
        ["convert", "--model.path", "a", "--"],
        ["profile", "--model.path", "a"],
    ],
)
def test_lines_the_direct_parser_is_not_sure_of_go_to_click(argv: list[str]) -> None:
    assert convert_parameters(argv) is None


def test_a_shell_completion_request_goes_to_click(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_HELIA_AOT_COMPLETE", "bash_source")
    assert convert_parameters(["convert", "--force"]) is None


def _environment(cwd: Path) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "COLUMNS": "100",
        "HOME": str(cwd),
        "HELIA_AOT_OPERATOR_INDEX": str(cwd / "i"),
    }


def _command(argv: list[str], entry: str, cwd: Path) -> tuple[int, str, str, list[str]]:
    """Exit code, stdout, stderr and the typer/click and ``LAZY`` modules loaded, of the command
    run in a fresh process through ``main`` (the console script) or the typer ``app``."""
    script = (
        "import json, sys\n"
        f"sys.argv = ['helia-aot', *{argv!r}]\n"
        "code = 0\n"
        "try:\n"
        f"    from helia_aot.cli import {entry}\n"
        f"    {entry}()\n"
        "except SystemExit as e:\n"
        "    code = e.code or 0\n"
        "sys.stdout.flush()\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('typer', 'click') or m in {LAZY!r})\n"
        "print('\\n' + json.dumps([code, loaded]))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=_environment(cwd),
    )
    *out, last = run.stdout.rstrip("\n").split("\n")
    code, loaded = json.loads(last)
    return code, "\n".join(out), run.stderr, loaded


def test_a_plain_convert_runs_without_typer_and_fails_as_the_typer_app_does(tmp_path: Path) -> None:
    """Pinned start-up gain: the console script converts KWS without importing typer, click or
    the modules of ``LAZY``; and a failing conversion prints the same error and exit code by
    either route. The operator index is written first, as any earlier run writes it (without it
    every operator module is imported, see test_startup_imports)."""
    warm = "from helia_aot.registry import build_default_registry_context; build_default_registry_context()"
    subprocess.run([sys.executable, "-c", warm], check=True, env=_environment(tmp_path), timeout=120)
    code, out, err, loaded = _command(
        ["convert", "--model.path", str(KWS), "--module.path", "m", "--verbose", "0"], "main", tmp_path
    )
    assert (code, loaded) == (0, []), err
    assert out.strip() == str(Path("m") / "helia_aot_nn")
    for argv in (
        ["convert", "--model.path", "missing.tflite", "--module.path", "m2"],
        ["convert", "--model.path", str(KWS), "--memory.planner", "nope", "--module.path", "m3"],
    ):
        direct = _command(argv, "main", tmp_path)
        through_typer = _command(argv, "app", tmp_path)
        assert direct[3] == [] and any(name.startswith("typer") for name in through_typer[3])
        assert direct[:3] == through_typer[:3]
        assert direct[0] == 2 and "Error:" in direct[2]
