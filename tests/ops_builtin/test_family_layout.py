"""The built-in pack and its tests stay laid out by operator family (scripts/family_layout.py):
every file sits in its family's folder, every file is in the table, no folder grows past about
40 source files; the kernel library and the template lookup search every family folder."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from helia_aot_ops_builtin import families

ROOT = Path(__file__).resolve().parents[2]


def load_layout():
    spec = importlib.util.spec_from_file_location("family_layout", ROOT / "scripts" / "family_layout.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_file_sits_in_its_family():
    problems = load_layout().check()
    assert problems == [], "\n".join(problems)


def test_a_file_outside_its_family_or_in_none_is_reported(tmp_path, monkeypatch):
    layout = load_layout()
    pack, tests = tmp_path / "pack", tmp_path / "tests"
    for folder in (pack / "conv", pack / "common", tests / "conv"):
        folder.mkdir(parents=True)
    (pack / "conv" / "hk_conv.h").write_text("")
    (pack / "conv" / "hk_conv_mve.c").write_text("")  # a fast path goes where its header goes
    (pack / "common" / "hk_conv_dsp.c").write_text("")  # ... so not here
    (pack / "conv" / "brand_new.py").write_text("")
    (tests / "conv" / "test_conv.py").write_text("")
    (tests / "conv" / "test_pool.py").write_text("")
    monkeypatch.setattr(layout, "PACK_DIR", pack)
    monkeypatch.setattr(layout, "TEST_DIR", tests)
    problems = layout.check()
    assert problems[0].startswith("common/hk_conv_dsp.c: belongs in conv/")
    assert problems[1].startswith("conv/brand_new.py: in no family") and "add its name to PACK" in problems[1]
    assert (
        problems[2]
        == "tests/ops_builtin/conv/test_pool.py: belongs in tests/ops_builtin/pooling/test_pool.py"
    )
    assert len(problems) == 3


def test_the_search_paths_cover_every_family_folder():
    layout = load_layout()
    with_kernels = {f for f, names in layout.PACK.items() if any(n.startswith("hk_") for n in names)}
    with_templates = {f for f, names in layout.PACK.items() if any(n.endswith(".mako") for n in names)}
    assert {p.name for p in families.KERNEL_PATH} == with_kernels
    assert {p.name for p in families.TEMPLATE_DIRS} == with_templates
    assert set(families.FAMILY_PACKAGES) == set(layout.PACK)
