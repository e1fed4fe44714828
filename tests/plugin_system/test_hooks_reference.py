"""docs/hooks-reference.md is generated from the hook specifications and must match them."""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path

from helia_aot.plugins import hookspecs

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gen_hooks_reference.py"


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_hooks_reference", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_hooks_reference_is_up_to_date():
    committed = (ROOT / "docs" / "hooks-reference.md").read_text(encoding="utf-8")
    assert committed == load_generator().render(), "run: python scripts/gen_hooks_reference.py"


def test_every_hook_is_documented_with_its_signature():
    text = load_generator().render()
    hooks = [
        name for name, value in vars(hookspecs).items() if name.startswith("helia_aot_") and callable(value)
    ]
    assert hooks, "hookspecs defines no hooks"
    for name in hooks:
        parameters = ", ".join(inspect.signature(getattr(hookspecs, name)).parameters)
        assert f"### `{name}`" in text
        for parameter in filter(None, parameters.split(", ")):
            assert f"{parameter}: " in text.split(f"### `{name}`")[1].split("###")[0]


def test_the_page_follows_the_docstrings_and_check_mode_accepts_it():
    generator = load_generator()
    edited = generator.render(
        generator.SOURCE.read_text().replace(
            "Register parsers, options classes", "Register parsers and options classes"
        )
    )
    assert "Register parsers and options classes" in edited
    proc = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
