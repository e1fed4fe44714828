"""``helia_aot.testing.verdict`` reads the self-test's summary lines back, and ``helia-aot test``
judges a run from them (``--exact``: only bit-exact passes).

The lines here are the generated self-test's format (tests/e2e/test_self_test_verdict.py produces
each verdict on a real module); these cases cover what a run there does not reach cheaply: a NaN
(max diff ``inf``), a skipped verification, a run that printed no summary.
"""

from __future__ import annotations

import math

from helia_aot.cli.selftest import judge
from helia_aot.testing.verdict import BIT_EXACT, MISMATCH, NOTHING_COMPARED, WITHIN_TOLERANCE, parse_self_test

RUN = """sample 0 run 0 output 1: 1 of 16 mismatched (max diff inf, 0 ULP)
m_test_case: output 0 int8: 48 compared, 0 differ, max diff 0: bit-exact
m_test_case: output 1 float32: 48 compared, 1 differ, max diff inf (0 ULP): mismatch (<= 4 ULP; 1 beyond)
m_test_case: output 2 float16: 48 compared, 2 differ, max diff 0.000488281: within tolerance (|diff| <= 0.00390625 = 0.00390625 x max|expected| 1)
m_test_case: FAIL (3 sample(s), 3 output(s)): mismatch
"""  # noqa: E501 - the lines as the self-test prints them


def test_each_output_line_and_the_summary_are_read():
    report = parse_self_test(RUN)
    exact, nan, half = report.outputs
    assert (exact.index, exact.dtype, exact.compared, exact.differ, exact.verdict) == (
        0,
        "int8",
        48,
        0,
        BIT_EXACT,
    )
    assert exact.max_diff == 0.0 and exact.bound == "" and exact.max_ulp is None
    assert math.isinf(nan.max_diff) and (nan.max_ulp, nan.verdict, nan.bound, nan.beyond) == (
        0,
        MISMATCH,
        "<= 4 ULP",
        1,
    )
    assert (half.verdict, half.differ, half.beyond) == (WITHIN_TOLERANCE, 2, 0)
    assert half.bound == "|diff| <= 0.00390625 = 0.00390625 x max|expected| 1"
    assert (report.verdict, report.passed, report.bit_exact) == (MISMATCH, False, False)


def test_skipped_verification_and_a_crash():
    skipped = parse_self_test("m_test_case: PASS (2 sample(s), 0 output(s)): nothing compared\n")
    assert (skipped.outputs, skipped.verdict, skipped.passed) == ((), NOTHING_COMPARED, True)
    crashed = parse_self_test("m_test_case: run failed with status -3\n")
    assert (crashed.outputs, crashed.verdict, crashed.passed) == ((), None, False)


def test_judge_exit_rules():
    exact = parse_self_test(
        "m_test_case: output 0 int8: 4 compared, 0 differ, max diff 0: bit-exact\n"
        "m_test_case: PASS (1 sample(s), 1 output(s)): bit-exact\n"
    )
    within = parse_self_test(
        "m_test_case: output 0 int8: 4 compared, 1 differ, max diff 1: within tolerance (|diff| <= 1)\n"
        "m_test_case: PASS (1 sample(s), 1 output(s)): within tolerance\n"
    )
    assert judge(True, exact, exact=True) == (True, "PASS: bit-exact")
    assert judge(True, within, exact=False) == (True, "PASS: within tolerance")
    assert judge(True, within, exact=True) == (False, "FAIL: within tolerance, not bit-exact (--exact)")
    assert judge(False, parse_self_test(RUN), exact=False) == (False, "FAIL: mismatch")
    assert judge(False, parse_self_test(""), exact=False) == (False, "FAIL: the self-test did not finish")
    skipped = parse_self_test("m_test_case: PASS (2 sample(s), 0 output(s)): nothing compared\n")
    assert judge(True, skipped, exact=False) == (True, "PASS: nothing compared")
    assert judge(True, skipped, exact=True)[0] is False
