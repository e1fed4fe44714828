"""How the ``helia-aot`` command starts: a plain ``convert`` line directly, anything else through
the typer app, both with the cyclic collector off for the command's lifetime."""

from __future__ import annotations

import importlib
import signal
import sys
import threading
from typing import Any, NoReturn

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
    previous = _interrupt_as_command_interrupted()
    try:
        if not run_direct(sys.argv[1:]):
            typer_app()()
    except (KeyboardInterrupt, CommandInterrupted) as error:
        _report_interrupted(error)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        collector_restored(was_enabled)


class CommandInterrupted(BaseException):
    """Ctrl-C during a command. Not a KeyboardInterrupt, because click turns one of those into
    "Aborted!" and exit 1 wherever the command happens to be (imports, parsing, the body); this
    one passes through click and ends in :func:`main` as "interrupted", exit 130. Being a
    BaseException, it still runs every ``finally`` and ``except BaseException`` cleanup."""


def _raise_command_interrupted(signum: int, frame: Any) -> NoReturn:
    raise CommandInterrupted


def _interrupt_as_command_interrupted() -> Any:
    """Make SIGINT raise :class:`CommandInterrupted`; return the handler it replaces (None when
    this is not the main thread, where Python lets no handler be installed)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGINT, _raise_command_interrupted)


def _report_interrupted(error: BaseException) -> NoReturn:
    # A second Ctrl-C while the message is printed (rich may still be importing) is ignored.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from helia_aot.cli.errors import EXIT_INTERRUPTED, print_error

    print_error("interrupted")
    raise SystemExit(EXIT_INTERRUPTED) from error


__all__ = ["CommandInterrupted", "main", "typer_app"]
