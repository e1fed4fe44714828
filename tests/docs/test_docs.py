"""Every runnable block in docs/ runs: python blocks execute, shell blocks (of README.md too) run
as written, and C programs compile against a converted module and exit 0.

Blocks run in a temporary directory holding the bundled KWS example (kws_int8.tflite,
kws_int8_probe.tflite with kws_int8_probe_golden.npz, and a convert.yaml) and the streaming
wake-word model (okay_nabu.tflite with okay_nabu_frames.npz), so examples can use those names.
A C program is built against kws_int8 converted with prefix ``kws``, or the model its page names in
``C_PROGRAM_MODELS`` (streaming.md: okay_nabu, whose state the program resets). ``text`` and
``toml`` blocks are illustrations and are not run.

Shell blocks (``sh``, ``bash``, ``console``) run whole, in the same kind of folder plus what a
command written for the repository root reaches (``shell_workdir``); a ``<!-- shell: ... -->``
comment before a block marks it ``cross``, ``walk`` or ``not run: REASON`` (docs/index.md, "Writing a
page"). A page's ``walk`` blocks run one after the other in one folder, as one test, so each
command can use what the ones before it wrote (getting-started.md's convert -> validate -> profile
-> app -> sweep).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
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
FRONT_END_PAGES = {"onnx.md": "helia_aot_frontend_onnx/tests/test_onnx_docs.py"}
"""Pages of a separately installed front end: their blocks need it (and onnx), so its own tests
run them, and the core's suite passes without it."""
BLOCK = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(language: str) -> list[tuple[str, int, str]]:
    found = []
    for page in sorted(DOCS.glob("*.md")):
        if page.name in FRONT_END_PAGES:
            continue
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
C_PROGRAMS = [b for b in blocks("c") if "int main" in b[2]]


@pytest.mark.parametrize("block", PYTHON)
def test_python_block_runs(block, workdir):
    exec(compile(block[2], f"{block[0]}#{block[1]}", "exec", dont_inherit=True), {"__name__": "__docs__"})


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


SHELL_LANGUAGES = ("sh", "bash", "console")
SHELL_PAGES = [ROOT / "README.md", *sorted(p for p in DOCS.glob("*.md") if p.name not in FRONT_END_PAGES)]
SHELL_MARK = re.compile(r"^<!-- shell: (?:(?P<cross>cross)|(?P<walk>walk)|not run: (?P<reason>.*?)) -->$")
"""The comment on the line before a shell block that changes how it runs: ``cross`` (it needs the
Arm cross toolchain or QEMU, so it runs in the cross tier), ``walk`` (it continues the page's walk:
the page's walk blocks run in order in one folder, one test, in the cross tier when one of them
needs it) or ``not run: REASON`` (it cannot run in a test: it installs system packages, runs the
whole suite, or takes hours; the reason says so)."""


@dataclass(frozen=True)
class ShellBlock:
    page: str
    index: int
    language: str
    body: str
    mark: str | None
    """The text of the ``<!-- shell: ... -->`` comment before the block, if any."""

    @property
    def id(self) -> str:
        return f"{self.page}#{self.index}"


def shell_blocks() -> list[ShellBlock]:
    found = []
    for page in SHELL_PAGES:
        text = page.read_text(encoding="utf-8")
        for n, match in enumerate(BLOCK.finditer(text)):
            if match.group(1) not in SHELL_LANGUAGES:
                continue
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
            mark = before if before.startswith("<!-- shell:") else None
            found.append(ShellBlock(page.name, n, match.group(1), match.group(2), mark))
    return found


SHELL = shell_blocks()


def _shell_params() -> list[Any]:
    params = []
    for block in SHELL:
        parsed = SHELL_MARK.match(block.mark) if block.mark else None
        if parsed and (parsed.group("reason") is not None or parsed.group("walk")):
            continue  # not run (test_every_shell_block_runs_or_says_why checks why), or a walk's
        marks = [pytest.mark.cross] if parsed and parsed.group("cross") else []
        params.append(pytest.param(block, id=block.id, marks=marks))
    return params


def test_every_shell_block_runs_or_says_why() -> None:
    """No shell block is left out silently: a mark is well formed, a block that is not run says
    why (and a test it names exists), and a block that starts QEMU or cross-builds is ``cross``."""
    problems = []
    for block in SHELL:
        parsed = SHELL_MARK.match(block.mark) if block.mark else None
        if block.mark and not parsed:
            problems.append(f"{block.id}: malformed {block.mark!r}")
        elif parsed and parsed.group("reason") is not None:
            reason = parsed.group("reason").strip()
            if len(reason) < 20:
                problems.append(f"{block.id}: 'not run' needs a reason, got {reason!r}")
            for named in re.findall(r"tests/[\w/]+\.py", reason):
                if not (ROOT / named).is_file():
                    problems.append(f"{block.id}: the reason names {named}, which does not exist")
        elif not parsed and QEMU_USE.search(block.body):
            problems.append(f"{block.id}: starts QEMU or cross-builds but is not marked cross")
    assert problems == []
    assert len(_shell_params()) >= 20  # the blocks that run are most of them


def _walks() -> list[Any]:
    """One test per page with ``walk`` blocks: the blocks in page order, in the cross tier when
    one of them cross-builds or starts QEMU."""
    pages: dict[str, list[ShellBlock]] = {}
    for block in SHELL:
        parsed = SHELL_MARK.match(block.mark) if block.mark else None
        if parsed and parsed.group("walk"):
            pages.setdefault(block.page, []).append(block)
    return [
        pytest.param(
            walk,
            id=f"{page}#walk",
            marks=[pytest.mark.cross] if any(QEMU_USE.search(b.body) for b in walk) else [],
        )
        for page, walk in pages.items()
    ]


WALKS = _walks()


def test_getting_started_walks_convert_validate_profile_app_sweep() -> None:
    """getting-started.md's walk runs the commands of the whole path, in this order."""
    (walk,) = [param.values[0] for param in WALKS if param.id == "getting-started.md#walk"]
    text = "\n".join(block.body for block in walk)
    found = [
        text.index(f"helia-aot {command} ") for command in ("convert", "validate", "profile", "app", "sweep")
    ]
    assert found == sorted(found)


@pytest.fixture
def shell_workdir(workdir):
    """The Python blocks' folder, plus what commands written for the repository root reach: the
    project's ``.venv`` (README's ``.venv/bin/helia-aot``), ``bench/`` and ``tests/data/`` (linked,
    read-only by the blocks), and ``my_model.tflite`` (README's model of your own: the KWS model)."""
    (workdir / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    (workdir / "bench").symlink_to(ROOT / "bench", target_is_directory=True)
    (workdir / "tests").mkdir()
    (workdir / "tests" / "data").symlink_to(ROOT / "tests" / "data", target_is_directory=True)
    shutil.copy(EXAMPLE / "kws_int8.tflite", workdir / "my_model.tflite")
    return workdir


def _console_commands(body: str) -> list[tuple[str, list[str]]]:
    """A transcript's ``$ command`` lines, each with the output lines shown under it."""
    commands: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands:
            commands[-1][1].append(line)
    return commands


def _words(text: str) -> str:
    return " ".join(text.split())


def _run_shell(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}", COLUMNS="200")
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.parametrize("walk", WALKS)
def test_shell_walk_runs(walk: list[ShellBlock], shell_workdir: Path) -> None:
    """A page's ``walk`` blocks run in page order in one folder, each whole under ``bash -e``."""
    for block in walk:
        proc = _run_shell(block.body, shell_workdir)
        assert proc.returncode == 0, f"{block.id}\n{block.body}\n{proc.stdout}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("block", _shell_params())
def test_shell_block_runs(block: ShellBlock, shell_workdir: Path) -> None:
    """``sh``/``bash`` blocks run whole under ``bash -e`` (every line, in order, each must succeed
    unless the block says ``|| ...``). A ``console`` transcript runs command by command: one whose
    shown output has an ``Error:`` line must fail with the ``hint:`` shown, the others succeed."""

    def run(script: str) -> subprocess.CompletedProcess[str]:
        return _run_shell(script, shell_workdir)

    if block.language != "console":
        proc = run(block.body)
        assert proc.returncode == 0, f"{block.body}\n{proc.stdout}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr
        return
    for command, shown in _console_commands(block.body):
        proc = run(command)
        output = proc.stdout + proc.stderr
        assert "Traceback" not in output
        if any(line.startswith("Error:") for line in shown):
            assert proc.returncode != 0, f"{command} should fail as shown\n{output}"
            for hint in (line for line in shown if line.startswith("hint:")):
                assert _words(hint) in _words(output), f"{command}\n{output}"
        else:
            assert proc.returncode == 0, f"{command}\n{output}"
