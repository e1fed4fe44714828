"""docs/onnx.md runs: its python blocks, then its shell blocks, in page order in one folder (the
page builds a model, converts it, writes golden data and tests it on the host). The core's
tests/docs skips the page (FRONT_END_PAGES there) since it needs this front end."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "onnx.md"
BLOCK = re.compile(r"(<!-- shell: not run: [^\n]*-->\n)?^```(\w+)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
"""A block, and the ``not run`` marker before it (docs/index.md, "Writing a page") if it has one."""


def test_the_onnx_page_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    found = [
        (m.group(2), m.group(3)) for m in BLOCK.finditer(PAGE.read_text(encoding="utf-8")) if not m.group(1)
    ]
    languages = [language for language, _ in found]
    assert languages.count("python") >= 3 and "bash" in languages
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    for number, (language, code) in enumerate(found):
        if language == "python":
            exec(compile(code, f"onnx.md#{number}", "exec", dont_inherit=True), {"__name__": "__docs__"})
        elif language in ("sh", "bash", "console"):
            run = subprocess.run(
                ["bash", "-e", "-c", code], capture_output=True, text=True, env=env, timeout=600
            )
            assert run.returncode == 0, f"onnx.md#{number}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
            assert "8 of 8 operators convert" in run.stdout or "helia-aot check" not in code
