"""How a command ends when something goes wrong: one ``Error:`` line, a ``hint:``, an exit code.

A person at a terminal needs to know what failed and what to do; a script needs the exit code the
error class declares. Tracebacks help neither, so they are printed only at ``--verbose 3``, except
for errors that are not typed helia-aot failures: those are bugs, and the message says so.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from pydantic import ValidationError
from rich.console import Console
from rich.text import Text

from helia_aot.command_start import EXIT_INTERRUPTED
from helia_aot.config.loading import CONFIG_HINT, format_validation_errors
from helia_aot.errors import HeliaAotError

TRACEBACK_VERBOSITY = 3


def error_console() -> Console:
    """A console on the current stderr (created per use, so a test runner's capture is honoured)."""
    return Console(stderr=True, highlight=False, soft_wrap=True)


def print_error(message: str, hint: str | None = None, *, console: Console | None = None) -> None:
    """Print ``Error: message`` and, when given, ``hint: hint`` without interpreting markup."""
    console = console or error_console()
    console.print(Text.assemble(("Error:", "bold red"), " ", message))
    if hint:
        console.print(Text.assemble(("hint:", "yellow"), " ", hint))


@contextmanager
def reported_errors(verbosity: Callable[[], int]) -> Iterator[None]:
    """Turn failures inside the block into a printed error and ``SystemExit(code)``.

    ``verbosity`` is called only when an error is reported, so it can return the level of a
    configuration that was built inside the block (or a fallback when building it failed).

    The exit is ``SystemExit`` rather than ``typer.Exit``: click lets it through to the process
    (and typer's test runner reads its code) exactly as it turns ``typer.Exit`` into one, and a
    conversion started without the typer app (:mod:`helia_aot.cli.direct`) ends the same way
    without importing typer.
    """
    try:
        yield
    except HeliaAotError as error:
        _maybe_traceback(verbosity)
        print_error(error.message, error.hint)
        raise SystemExit(error.exit_code) from error
    except ValidationError as error:
        _maybe_traceback(verbosity)
        problems = format_validation_errors(error)
        print_error("invalid configuration:\n" + "\n".join(f"  - {line}" for line in problems), CONFIG_HINT)
        raise SystemExit(2) from error
    except KeyboardInterrupt as error:
        print_error("interrupted")
        raise SystemExit(EXIT_INTERRUPTED) from error
    except Exception as error:  # a bug, not a typed failure: say so and keep the evidence
        if _is_typer_exit(error):
            raise
        _maybe_traceback(verbosity)
        print_error(
            f"internal error: {type(error).__name__}: {error}",
            "this is a bug in helia-aot or a plugin; rerun with --verbose 3 for the traceback and report it",
        )
        raise SystemExit(1) from error


def _is_typer_exit(error: Exception) -> bool:
    # A command body may end itself with typer.Exit (an Exception to click); it is not a bug. Only
    # a process that imported typer can raise one, so typer is not imported to ask.
    typer = sys.modules.get("typer")
    return typer is not None and isinstance(error, typer.Exit)


def _maybe_traceback(verbosity: Callable[[], int]) -> None:
    if verbosity() >= TRACEBACK_VERBOSITY:
        error_console().print(Text(traceback.format_exc().rstrip()))


__all__ = ["EXIT_INTERRUPTED", "error_console", "print_error", "reported_errors"]
