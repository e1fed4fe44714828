"""Every code block of docs/plugin-author-guide.md runs, and the guide followed literally works.

Every titled block (```lang title="path") is written to that path in an empty folder, and every
``sh`` block runs there line by line in page order, in an environment where the pack is installed
the way the page says. ``pip install .`` is the one line translated: it installs offline into a
throwaway target (see example_pack.py) instead of the project's environment. Untitled ``python3``
blocks run in this process beside the bundled KWS example, as modules of their own (their
dataclasses resolve annotations through ``sys.modules``). No other block kind may appear.
"""

from __future__ import annotations

import re
import shutil
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

from .example_pack import InstalledPack, pip_install

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "plugin-author-guide.md"
HOOKS = ROOT / "docs" / "hooks-reference.md"
EXAMPLE = ROOT / "examples" / "kws"
FENCE = re.compile(
    r'^```(?P<lang>\w+)(?:[ \t]+title="(?P<title>[^"]+)")?[ \t]*\n(?P<body>.*?)^```', re.MULTILINE | re.DOTALL
)


@dataclass(slots=True)
class Block:
    lang: str
    title: str | None
    body: str


def blocks(page: Path) -> list[Block]:
    return [Block(m["lang"], m["title"], m["body"]) for m in FENCE.finditer(page.read_text())]


def test_every_block_has_a_runner():
    for page in (GUIDE, HOOKS):
        for block in blocks(page):
            runnable = block.title is not None or block.lang in ("sh", "python3")
            assert runnable, f"{page.name}: a {block.lang} block without a title is run by no test"
        text = page.read_text()
        assert "```" not in re.sub(FENCE, "", text), f"{page.name}: a fence the runner does not parse"


SNIPPETS = [b for b in blocks(GUIDE) if b.title is None and b.lang == "python3"]


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[f"snippet{i}" for i in range(len(SNIPPETS))])
def test_snippet_runs(snippet, tmp_path, monkeypatch):
    for name in ("kws_int8.tflite", "kws_int8_probe.tflite", "kws_int8_probe_golden.npz"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    module = types.ModuleType(f"guide_snippet_{tmp_path.name}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(snippet.body, GUIDE.name, "exec", dont_inherit=True), module.__dict__)


def test_the_guide_builds_a_working_pack(tmp_path):
    pack_dir = tmp_path / "acme-ops"
    pack_dir.mkdir()
    pack = InstalledPack(pack_dir, tmp_path / "site")
    ran = []
    for block in blocks(GUIDE):
        if block.title is not None:
            target = pack_dir / block.title
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body)
            continue
        if block.lang != "sh":
            continue
        for line in block.body.splitlines():
            command = line.split("  #")[0].strip()
            if not command:
                continue
            if command.startswith("pip install"):
                assert command == "pip install .", f"the runner only translates 'pip install .': {command}"
                pip_install(pack_dir, pack.site)
            else:
                proc = pack.run(["bash", "-c", command], cwd=pack_dir)
                assert proc.returncode == 0, f"{command}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
                assert "Traceback" not in proc.stderr, proc.stderr
                ran.append((command, proc.stdout))
    commands = [command for command, _ in ran]
    assert commands == [
        "python make_model.py",
        "helia-aot plugins",
        "helia-aot convert --path convert.yaml",
        "python -m pytest -q tests",
    ]
    listing = dict(ran)["helia-aot plugins"]
    assert "acme_ops" in listing and "ACME_CLAMP" in listing
    assert (pack_dir / "out" / "clamp_module" / "src" / "aot_acme_clamp_0.c").is_file()
    assert "3 passed" in dict(ran)["python -m pytest -q tests"]
