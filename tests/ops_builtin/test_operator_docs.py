"""docs/operators.md lists every built-in operator with exactly the element types it accepts
(an operator that declares none, such as ETHOS_U, is listed as refused)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from helia_aot_ops_builtin.plugin import registrations

PAGE = Path(__file__).resolve().parents[2] / "docs" / "operators.md"
REFUSED = "none: refused at Resolve"
ROW = re.compile(r"^\| `([A-Z0-9_]+)` \| ([^|]+) \|$", re.MULTILINE)


def test_every_registered_operator_is_listed_with_its_types():
    listed = {
        key: set() if types.strip() == REFUSED else {t.strip() for t in types.split(",")}
        for key, types in ROW.findall(PAGE.read_text())
    }
    declared = {
        r.key: {np.dtype(t).name for t in (r.operator.SUPPORTED_DTYPES or ())} for r in registrations()
    }
    assert listed == declared
