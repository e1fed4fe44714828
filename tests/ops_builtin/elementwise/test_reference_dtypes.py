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

import pytest
from helia_aot import ConvertArgs
from helia_aot.registry import build_default_registry_context
from helia_aot.support import check_model

from ops_builtin.support.linked_host import run_linked
from ops_builtin.support.reference_dtypes import (
    DTYPES,
    NARROW_INTEGER_CASES,
    OPERATORS,
    integer_golden,
    reference_runs,
    single_op_model,
)

DOC = Path(__file__).resolve().parents[3] / "docs" / "operators.md"

KNOWN_MISSING = frozenset(
    {
        *((op, "uint8") for op in "RELU RELU6 RELU_N1_TO_1 RELU_0_TO_1 LOGISTIC TANH".split()),
        *((op, "uint8") for op in "HARD_SWISH GELU LEAKY_RELU LOG_SOFTMAX SOFTMAX".split()),
        *((op, "uint8") for op in "ADD SUB MUL DIV MAXIMUM MINIMUM".split()),
    }
)
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
    """DIV int8 and int16 and the integer forms (refused before issue 31) run in the reference
    and convert."""
    for pair in (("DIV", "int8"), ("DIV", "int16"), *NARROW_INTEGER_CASES):
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
