"""Every runnable block in docs/ runs: python blocks execute, shell lines invoking helia-aot run,
and C programs compile against a converted module and exit 0.

Blocks run in a temporary directory holding the bundled KWS example (kws_int8.tflite,
kws_int8_probe.tflite with kws_int8_probe_golden.npz, and a convert.yaml) and the streaming
wake-word model (okay_nabu.tflite with okay_nabu_frames.npz), so examples can use those names.
A C program is built against kws_int8 converted with prefix ``kws``, or the model its page names in
``C_PROGRAM_MODELS`` (streaming.md: okay_nabu, whose state the program resets). ``text`` and
``toml`` blocks are illustrations and are not run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EXAMPLE = ROOT / "examples" / "kws"
STREAMING = ROOT / "tests" / "data" / "streaming"
C_PROGRAM_MODELS = {"streaming.md": "okay_nabu.tflite"}
"""The model a page's C programs run (default kws_int8.tflite), always with prefix ``kws``."""
BLOCK = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(language: str) -> list[tuple[str, int, str]]:
    found = []
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text()
        for n, match in enumerate(BLOCK.finditer(text)):
            if match.group(1) == language:
                found.append((page.name, n, match.group(2)))
    return found


def block_id(item: tuple[str, int, str]) -> str:
    return f"{item[0]}#{item[1]}"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    for name in ("kws_int8.tflite", "kws_int8_probe.tflite", "kws_int8_probe_golden.npz"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    for name in ("okay_nabu.tflite", "okay_nabu_frames.npz"):
        shutil.copy(STREAMING / name, tmp_path / name)
    # What streaming.md's Python block writes for its C program (each block runs in its own dir).
    with np.load(STREAMING / "okay_nabu_frames.npz") as data:
        data["input_0"].tofile(tmp_path / "okay_nabu_frames.bin")
    (tmp_path / "convert.yaml").write_text(
        "model:\n  path: kws_int8.tflite\nmodule:\n  path: out\n  name: kws_yaml\n"
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


QEMU_USE = re.compile(
    r"qemu|cross_build|profile_module|helia-aot profile|--target m(?:55|4)\b|testing\.cycles|\"m55\"|\"m4\""
)
"""What a block that cross-builds for a Cortex-M core or runs QEMU says: such blocks carry the
``cross`` marker, so the README's quick subset (-m "not cross") leaves them out."""


def marked(found: list[tuple[str, int, str]]) -> list[Any]:
    return [
        pytest.param(b, id=block_id(b), marks=[pytest.mark.cross] if QEMU_USE.search(b[2]) else [])
        for b in found
    ]


PYTHON = marked(blocks("python"))
SHELL = marked(blocks("sh"))
C_PROGRAMS = [b for b in blocks("c") if "int main" in b[2]]


@pytest.mark.parametrize("block", PYTHON)
def test_python_block_runs(block, workdir):
    exec(compile(block[2], f"{block[0]}#{block[1]}", "exec", dont_inherit=True), {"__name__": "__docs__"})


@pytest.mark.parametrize("block", SHELL)
def test_shell_block_runs(block, workdir):
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    for line in block[2].splitlines():
        line = line.split("  #")[0].strip()
        if not line.startswith("helia-aot"):
            continue  # setup commands and prose-like lines are covered elsewhere
        proc = subprocess.run(
            ["bash", "-c", line], cwd=workdir, env=env, capture_output=True, text=True, timeout=300
        )
        assert proc.returncode == 0, f"{line}\n{proc.stdout}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("block", C_PROGRAMS, ids=[block_id(b) for b in C_PROGRAMS])
def test_c_program_builds_and_runs(block, workdir):
    from helia_aot import AotConverter, ConvertArgs
    from helia_aot.testing import build_module

    result = AotConverter(
        ConvertArgs.model_validate(
            {
                "model": {"path": C_PROGRAM_MODELS.get(block[0], "kws_int8.tflite")},
                "module": {"path": "out", "name": "kws_c", "prefix": "kws"},
            }
        )
    ).convert()
    exe = build_module(result.output, workdir / "build", prefix="kws", main_source=block[2])
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, cwd=workdir)
    assert proc.returncode == 0, proc.stdout + proc.stderr
