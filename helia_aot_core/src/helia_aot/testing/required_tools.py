"""Tools a test needs: skipped locally when one is missing, a failure when the run is CI.

A missing compiler or emulator must not turn a CI run green: a skipped on-target test proves
nothing, and a skip among a thousand passes goes unread. So when the environment variable ``CI``
is set (GitHub Actions and most services set ``CI=true``; ``.ci/run`` runs the suite under it), a
missing tool raises MissingToolError and the test fails. Without ``CI``, on a developer's machine,
the test is skipped with a sentence saying what to install.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

__all__ = ["MissingToolError", "missing_tools", "require", "require_tools", "running_in_ci"]

_NOT_CI = frozenset({"", "0", "false", "no", "off"})


class MissingToolError(RuntimeError):
    """A tool a test needs is missing while ``CI`` is set, so the test may not skip."""


def running_in_ci(environ: Mapping[str, str] | None = None) -> bool:
    """True when ``CI`` is set to anything but an explicit off value (empty, 0, false, no, off)."""
    value = (os.environ if environ is None else environ).get("CI")
    return value is not None and value.strip().lower() not in _NOT_CI


def missing_tools(*tools: str) -> list[str]:
    """The tools, in the order given, that are not executables on PATH."""
    return [tool for tool in tools if shutil.which(tool) is None]


def require(problem: str | None) -> None:
    """Nothing when ``problem`` is None; else fail under CI, skip the running test otherwise.

    ``problem`` is a sentence naming what is missing and how to install it.
    """
    if problem is None:
        return
    if running_in_ci():
        raise MissingToolError(f"{problem} (CI is set, so tests that need it fail instead of skipping)")
    import pytest

    pytest.skip(problem)


def require_tools(*tools: str) -> None:
    """``require`` for host executables (``cmake``, ``gcc``...), by name on PATH."""
    missing = missing_tools(*tools)
    require(f"missing {', '.join(missing)} on PATH; install it to run this test" if missing else None)
