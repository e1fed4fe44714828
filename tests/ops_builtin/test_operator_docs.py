"""docs/operators.md is generated from the operator records (scripts/gen_operator_docs.py): its
table lists every built-in operator with exactly the element types it accepts (an operator that
declares none, such as ETHOS_U, is listed as refused) and its restrictions are the classes' own."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
from helia_aot_ops_builtin.plugin import registrations
from helia_aot_ops_builtin.transforms.uint8_as_int8 import Uint8AsInt8

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "operators.md"
REFUSED = "none: refused at Resolve"
ROW = re.compile(r"^\| `([A-Z0-9_]+)` \| ([^|]+) \| ([^|]+) \|$", re.MULTILINE)


def load_generator():
    spec = importlib.util.spec_from_file_location(
        "gen_operator_docs", ROOT / "scripts" / "gen_operator_docs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_page_is_what_the_generator_writes():
    assert PAGE.read_text(encoding="utf-8") == load_generator().render(), (
        "run: python scripts/gen_operator_docs.py"
    )


def test_every_registered_operator_is_listed_with_its_types():
    rows = ROW.findall(PAGE.read_text())
    listed = {
        key: set() if types.strip() == REFUSED else {t.strip() for t in types.split(";")[0].split(",")}
        for key, types, _keys in rows
    }
    declared = {
        r.key: {np.dtype(t).name for t in (r.operator.SUPPORTED_DTYPES or ())} for r in registrations()
    }
    assert listed == declared
    # Constant weight types beyond those (int4), after "; weights also".
    weights = {
        key: types.split("; weights also ")[1].split(", ")
        for key, types, _ in rows
        if "; weights also " in types
    }
    assert weights == {
        r.key: list(r.operator.WEIGHT_DTYPES) for r in registrations() if r.operator.WEIGHT_DTYPES
    }
    # Constant weight types the operator runs hybrid with (float32 activations).
    hybrid = {
        key: types.split("; hybrid float32 with ")[1].split(" weights")[0].split(", ")
        for key, types, _ in rows
        if "; hybrid float32 with " in types
    }
    assert hybrid == {
        r.key: list(r.operator.HYBRID_WEIGHT_DTYPES)
        for r in registrations()
        if r.operator.HYBRID_WEIGHT_DTYPES
    }
    assert {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "BATCH_MATMUL", "SVDF"} <= set(hybrid)
    # Types a transform rewrites onto the kernels' own (uint8 through UINT8_AS_INT8).
    rewritten = {key for key, types, _ in rows if "; uint8 through UINT8_AS_INT8" in types}
    assert rewritten == set(Uint8AsInt8.ADDED_DTYPES)


def test_every_restriction_sentence_is_on_the_page():
    text = PAGE.read_text()
    for record in registrations():
        for sentence in record.operator.RESTRICTIONS:
            assert sentence.replace("|", "\\|") in text, (record.key, sentence)


def test_check_mode_reports_a_stale_page(tmp_path, monkeypatch, capsys):
    generator = load_generator()
    stale = tmp_path / "operators.md"
    page = PAGE.read_text(encoding="utf-8")
    stale.write_text(page.replace("| `ABS` |", "| `ABZ` |"), encoding="utf-8")
    monkeypatch.setattr(generator, "ROOT", tmp_path)
    monkeypatch.setattr(generator, "DOC", stale)
    assert generator.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert generator.main([]) == 0
    assert generator.main(["--check"]) == 0
    assert stale.read_text(encoding="utf-8") == page
