"""How the ``helia-aot`` command starts: a plain ``convert`` line directly, anything else through
the typer app, both with the cyclic collector off for the command's lifetime."""

from __future__ import annotations

import importlib
import sys
from typing import Any

from helia_aot.cli.direct import run_direct
from helia_aot.pipeline.collector import collector_off_for_command, collector_paused, collector_restored


def typer_app() -> Any:
    """The ``helia-aot`` typer app, imported on first use.

    Its imports make few cycles and live as long as the process, so they are frozen out of the
    collector (:func:`helia_aot.pipeline.collector.collector_paused`).
    """
    with collector_paused(keep=True):
        return importlib.import_module("helia_aot.cli.app").app


def main() -> None:
    """Console-script entry point (``helia-aot``, ``python -m helia_aot``): the command with the
    cyclic collector off (see :func:`helia_aot.pipeline.collector.collector_off_for_command`).

    A ``convert`` line of plain flags runs without typer (:mod:`helia_aot.cli.direct`); every
    other line, and any line that parser does not take, goes to the typer app.
    """
    was_enabled = collector_off_for_command()
    try:
        if not run_direct(sys.argv[1:]):
            typer_app()()
    finally:
        collector_restored(was_enabled)


__all__ = ["main", "typer_app"]
