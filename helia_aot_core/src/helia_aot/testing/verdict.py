"""How exact a self-test's PASS was: its summary lines, read back into records.

The generated ``<prefix>_test_case.c`` prints, after its runs, one line per compared output and a
last line with the whole run's verdict::

    m_test_case: output 0 int8: 36 compared, 0 differ, max diff 0: bit-exact
    m_test_case: output 1 float32: 24 compared, 3 differ, max diff 2e-07 (2 ULP): within tolerance (<= 4 ULP)
    m_test_case: output 2 int8: 36 compared, 5 differ, max diff 3: mismatch (|diff| <= 1; 2 beyond)
    m_test_case: FAIL (3 sample(s), 3 output(s)): mismatch

A PASS alone does not say whether the module matched the reference bit for bit or only within
``test.tolerance``; ``helia-aot test``, the bundled example and the tests read the verdict here
instead of searching the output for "PASS".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BIT_EXACT = "bit-exact"
"""Every compared value equals the expected one."""
WITHIN_TOLERANCE = "within tolerance"
"""Some values differ, none beyond the output's bound."""
MISMATCH = "mismatch"
"""Some value is beyond its output's bound: the self-test fails."""
NOTHING_COMPARED = "nothing compared"
"""``test.skip_verification``: the model ran, no output was compared."""

VERDICTS = (BIT_EXACT, WITHIN_TOLERANCE, MISMATCH, NOTHING_COMPARED)

_OUTPUT_LINE = re.compile(
    r"^(?P<prefix>\w+)_test_case: output (?P<index>\d+) (?P<dtype>\w+): (?P<compared>\d+) compared, "
    r"(?P<differ>\d+) differ, max diff (?P<max_diff>\S+?)(?: \((?P<max_ulp>\d+) ULP\))?: "
    r"(?P<verdict>bit-exact|within tolerance|mismatch)(?: \((?P<bound>.*?)(?:; (?P<beyond>\d+) beyond)?\))?$"
)
_SUMMARY_LINE = re.compile(
    r"^(?P<prefix>\w+)_test_case: (?P<status>PASS|FAIL) \((?P<counts>.*)\): "
    r"(?P<verdict>bit-exact|within tolerance|mismatch|nothing compared)$"
)


@dataclass(frozen=True, slots=True)
class OutputVerdict:
    """One output's comparison over every sample and run of a self-test."""

    index: int
    dtype: str
    compared: int
    """Values compared (elements x samples x compared runs)."""
    differ: int
    """Values not equal to the expected one."""
    max_diff: float
    """The largest absolute difference (``inf`` when a NaN was involved)."""
    verdict: str
    """One of ``bit-exact``, ``within tolerance``, ``mismatch``."""
    bound: str = ""
    """The output's bound as the line printed it (empty for a bit-exact output)."""
    beyond: int = 0
    """Values beyond the bound (non-zero only for a mismatch)."""
    max_ulp: int | None = None
    """The largest distance in float32 ULPs, for an output checked by ``test.tolerance_ulp``."""


@dataclass(frozen=True, slots=True)
class SelfTestReport:
    """A self-test's verdict lines: per output, and the run's (``None`` when no summary was printed,
    as after a crash or a failed ``<prefix>_model_run``)."""

    outputs: tuple[OutputVerdict, ...]
    verdict: str | None
    passed: bool

    @property
    def bit_exact(self) -> bool:
        """Whether every compared value of every output equals the expected one (and some were)."""
        return self.verdict == BIT_EXACT


def parse_self_test(stdout: str) -> SelfTestReport:
    """Read the verdict lines of a self-test's output (other lines are ignored)."""
    outputs: list[OutputVerdict] = []
    verdict: str | None = None
    passed = False
    for raw in stdout.splitlines():
        line = raw.strip()
        match = _OUTPUT_LINE.match(line)
        if match is not None:
            outputs.append(
                OutputVerdict(
                    index=int(match["index"]),
                    dtype=match["dtype"],
                    compared=int(match["compared"]),
                    differ=int(match["differ"]),
                    max_diff=float(match["max_diff"]),
                    verdict=match["verdict"],
                    bound=match["bound"] or "",
                    beyond=int(match["beyond"] or 0),
                    max_ulp=None if match["max_ulp"] is None else int(match["max_ulp"]),
                )
            )
            continue
        match = _SUMMARY_LINE.match(line)
        if match is not None:
            verdict, passed = match["verdict"], match["status"] == "PASS"
    return SelfTestReport(tuple(outputs), verdict, passed)


__all__ = [
    "BIT_EXACT",
    "MISMATCH",
    "NOTHING_COMPARED",
    "VERDICTS",
    "WITHIN_TOLERANCE",
    "OutputVerdict",
    "SelfTestReport",
    "parse_self_test",
]
