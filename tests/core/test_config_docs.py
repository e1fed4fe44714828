"""docs/configuration.md is generated from the configuration models and must match them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from helia_aot.config import config_keys

ROOT = Path(__file__).resolve().parents[2]


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_config_docs", ROOT / "scripts" / "gen_config_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_configuration_doc_is_up_to_date():
    generator = load_generator()
    committed = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert committed == generator.render(), "run: python scripts/gen_config_docs.py"


def test_doc_lists_every_key_with_default_and_flag():
    text = load_generator().render()
    for key in config_keys(items=True):
        row = next(line for line in text.splitlines() if line.startswith(f"| `{key.key}` |"))
        if key.cli_flag:
            assert f"`{key.cli_flag}`" in row
        if not key.required:
            assert f"`{key.default_text}`" in row


def test_check_mode_reports_a_stale_doc(tmp_path, monkeypatch):
    generator = load_generator()
    stale = tmp_path / "configuration.md"
    stale.write_text("# old\n", encoding="utf-8")
    monkeypatch.setattr(generator, "ROOT", tmp_path)
    monkeypatch.setattr(generator, "DOC", stale)
    assert generator.main(["--check"]) == 1
    assert generator.main([]) == 0
    assert generator.main(["--check"]) == 0
    assert stale.read_text(encoding="utf-8") == generator.render()
