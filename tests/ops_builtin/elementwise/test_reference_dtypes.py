"""Every element type LiteRT's reference kernels run, the catalogue converts (or lists as missing).

For each operator of ``reference_dtypes.OPERATORS`` and each element type of ``DTYPES`` one
single-operator model is generated; LiteRT's reference resolver says whether the pair exists (it
prepares and invokes the model) and ``helia_aot.support.check_model`` whether it converts. The
pairs the reference runs and we refuse must be exactly ``KNOWN_MISSING``, which
docs/operators.md lists too: implementing one (or the reference gaining one) fails this test
until both lists say so.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.registry import build_default_registry_context
from helia_aot.support import check_model

from ops_builtin.support.linked_host import run_linked
from ops_builtin.support.reference_dtypes import (
    DTYPES,
    NARROW_INTEGER_CASES,
    OPERATORS,
    UINT8_SHIFTED,
    integer_golden,
    reference_runs,
    single_op_model,
    uint8_golden,
)

DOC = Path(__file__).resolve().parents[3] / "docs" / "operators.md"

KNOWN_MISSING: frozenset[tuple[str, str]] = frozenset()
"""(operator, element type) pairs LiteRT's reference kernels run that do not convert yet."""


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    """(operator, type) -> (the reference runs it, it converts), one generated model each."""
    root = tmp_path_factory.mktemp("dtypes")
    context = build_default_registry_context()
    found = {}
    for op in OPERATORS:
        for dtype in DTYPES:
            model = single_op_model(root / f"{op}_{dtype}.tflite", op, dtype)
            config = ConvertArgs.model_validate(
                {"model": {"path": str(model)}, "module": {"path": str(root / "out"), "name": "m"}}
            )
            converts = all(row.supported for row in check_model(config, context))
            found[(op, dtype)] = (reference_runs(model), converts)
    return found


def test_every_reference_type_converts_or_is_listed_missing(survey):
    missing = {pair for pair, (runs, converts) in survey.items() if runs and not converts}
    assert missing == KNOWN_MISSING
    assert sum(runs for runs, _ in survey.values()) > 100  # the survey saw the reference run


def test_the_pairs_added_for_issue_31_convert(survey):
    """DIV int8 and int16, the integer forms and the uint8 forms (refused before issue 31) run
    in the reference and convert."""
    for pair in (("DIV", "int8"), ("DIV", "int16"), *NARROW_INTEGER_CASES, *UINT8_SHIFTED):
        assert survey[pair] == (True, True), pair


def test_the_operator_page_lists_the_missing_pairs():
    text = DOC.read_text()
    section = text.split("## Element types the reference has and these kernels do not", 1)[1]
    section = section.split("\n## ", 1)[0]
    listed = set()
    for op, types in re.findall(r"^- `(\w+)`: (.+)$", section, re.MULTILINE):
        listed.update((op, t) for t in re.findall(r"`(\w+)`", types))
    assert listed == KNOWN_MISSING


def test_integer_forms_match_the_reference(tmp_path):
    """The integer pairs added for issue 31 run bit-exact on the host (ASan/UBSan), one linked
    program for all of them."""
    cases = {}
    for op, dtype in NARROW_INTEGER_CASES:
        name = f"{op.lower()}_{dtype}"
        model = single_op_model(tmp_path / f"{name}.tflite", op, dtype)
        cases[name] = (model, integer_golden(model, 3, 1, tmp_path / f"{name}.npz"), None)
    sections = run_linked(cases, tmp_path / "linked")
    for name, section in sections.items():
        assert "bit-exact" in section, f"{name}: {section}"


def test_uint8_forms_match_the_reference(tmp_path):
    """The uint8 pairs, run by the int8 kernels between shifting QUANTIZE operators
    (UINT8_AS_INT8), are bit-exact on the host over the whole uint8 range (ASan/UBSan)."""
    cases = {}
    for op, dtype in UINT8_SHIFTED:
        name = f"{op.lower()}_{dtype}"
        model = single_op_model(tmp_path / f"{name}.tflite", op, dtype)
        cases[name] = (model, uint8_golden(model, 4, 2, tmp_path / f"{name}.npz"), None)
    sections = run_linked(cases, tmp_path / "linked")
    for name, section in sections.items():
        assert "bit-exact" in section, f"{name}: {section}"


def test_uint8_chain_with_a_constant_operand_matches_the_reference(tmp_path):
    """A uint8 ADD of a constant, then a uint8 LOGISTIC: the constant is stored shifted, the
    intermediate passes through the shifting QUANTIZE operators."""
    b = LiteRTModelBuilder()
    rng = np.random.default_rng(5)

    def q(scale: float, zero: int):
        return (np.array([scale], np.float32), np.array([zero], np.int64), 0)

    x = b.add_tensor("x", (2, 8), "uint8", quantization=q(0.04, 120))
    c = b.add_tensor("c", (1, 8), "uint8", data=rng.integers(0, 256, (1, 8)), quantization=q(0.03, 90))
    s = b.add_tensor("s", (2, 8), "uint8", quantization=q(0.06, 130))
    y = b.add_tensor("y", (2, 8), "uint8", quantization=q(1 / 256, 0))
    b.add_operator("ADD", [x, c], [s])
    b.add_operator("LOGISTIC", [s], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    model = b.save(tmp_path / "chain.tflite")
    config = {"model": {"path": str(model)}, "module": {"path": str(tmp_path / "plan"), "name": "m"}}
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    types = [op.op_type for op in result.plan.operators]
    assert types == ["QUANTIZE", "ADD", "QUANTIZE", "QUANTIZE", "LOGISTIC", "QUANTIZE"], types
    sections = run_linked(
        {"chain": (model, uint8_golden(model, 4, 3, tmp_path / "chain.npz"), None)}, tmp_path / "linked"
    )
    assert "bit-exact" in sections["chain"], sections["chain"]
