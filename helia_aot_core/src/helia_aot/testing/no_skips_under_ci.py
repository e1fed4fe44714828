"""Under CI a skipped or expected-to-fail test counts as failed: a skip there proves nothing.

The required-tools rule (helia_aot.testing.required_tools) already turns a missing compiler or
emulator into a failure when ``CI`` is set, so under CI nothing legitimate skips. Anything that
still does (a ``skip``/``skipif``/``xfail`` mark, a ``pytest.skip`` call, ``importorskip``, an empty
parametrization, a module-level skip) would turn a CI run green while checking nothing, so this
plugin reports it as a failure naming the reason. On a developer's machine skips stay skips.

helia-aot's suite loads it from tests/conftest.py (``pytest_plugins``); a pack's suite can too, or
pass ``-p helia_aot.testing.no_skips_under_ci``. tests/test_skip_policy.py checks the plugin and,
statically, that the suite's only way to skip is the required-tools one.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from helia_aot.testing.required_tools import running_in_ci


def _reason(report: Any) -> str:
    if getattr(report, "wasxfail", None) is not None:
        return f"expected to fail ({report.wasxfail or 'no reason given'})"
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _fail_if_skipped(report: Any) -> None:
    if report.skipped and running_in_ci():
        reason = _reason(report)
        report.outcome = "failed"
        report.longrepr = (
            f"skipped under CI: {reason} (with CI set no test may skip: one that needs a tool uses "
            "the cross/tools markers or helia_aot.testing.require, which fail here)"
        )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    _fail_if_skipped(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    outcome = yield
    _fail_if_skipped(outcome.get_result())
