"""Ctrl-C at any moment of a command ends with ``Error: interrupted`` and exit status 130.

Each case is a real process started as the console script starts the command (``sys.argv[0]``
is ``helia-aot``; ``from helia_aot.cli import main; main()``), running ``helia-aot test --target
host``. For the start-up, the Ctrl-C is made exact: an audit hook raises SIGINT when a chosen
module is first imported (ours before the command's handler is installed, then typer, rich,
pydantic, numpy inside it), where Python would otherwise print a KeyboardInterrupt traceback and
click "Aborted!" with exit 1. A last case sends SIGINT from outside after a delay (in the
conversion, the build or the run).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helia_aot.cli.errors import EXIT_INTERRUPTED
from helia_aot.testing import require_tools

from .corpus import DATA_DIR

MODEL = DATA_DIR / "models" / "relu_int8.tflite"

ARGS = ["test", "--model.path", str(MODEL), "--target", "host"]

LAUNCH = """
import signal, sys
target = sys.argv.pop(1)
def hook(event, args):
    if event == "import" and args[0] == target:
        signal.raise_signal(signal.SIGINT)
if target:
    sys.addaudithook(hook)
sys.argv[0] = "helia-aot"
from helia_aot.cli import main
main()
"""
"""The console script's two lines, after an audit hook that presses Ctrl-C on one import."""

IMPORTS = ("helia_aot.lazy_names", "helia_aot.cli.launch", "typer", "rich.console", "pydantic", "numpy")
"""Modules imported at start-up, in order: before the command's own handler, then inside it."""


def start(cwd: Path, interrupt_on: str = "") -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", LAUNCH, interrupt_on, *ARGS],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "80"},
    )


def assert_interrupted(proc: subprocess.Popen[str]) -> None:
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == EXIT_INTERRUPTED, (proc.returncode, stderr)
    assert "Error: interrupted" in stderr
    assert "Traceback" not in stderr and "Aborted" not in stderr


@pytest.mark.parametrize("module", IMPORTS)
def test_ctrl_c_during_start_up_says_interrupted_and_exits_130(tmp_path, module):
    assert_interrupted(start(tmp_path, module))
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_in_the_command_body_says_interrupted_and_exits_130(tmp_path):
    """SIGINT from outside once the command is running (the conversion, build or run)."""
    require_tools("gcc")
    proc = start(tmp_path)
    assert proc.stderr is not None
    assert proc.stderr.readline().strip()  # the first progress line: the conversion has begun
    time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    assert_interrupted(proc)
    assert list(tmp_path.iterdir()) == []
