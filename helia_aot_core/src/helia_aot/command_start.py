"""Ctrl-C while the ``helia-aot`` command is still starting: ``Error: interrupted``, exit 130.

The command's own handler (:func:`helia_aot.cli.launch.main`) is installed only once its module
is imported; before that, Python's default handler would print a KeyboardInterrupt traceback from
whichever import it landed in. This module is imported first by the package, and only when the
process *is* the command (the console script or ``python -m helia_aot``) does it install a handler
that says "interrupted" and ends the process at once: nothing has been written yet, so there is
nothing to clean up. A program that merely imports helia_aot keeps its own SIGINT handling.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType

EXIT_INTERRUPTED = 130
"""The conventional status of a process stopped by SIGINT (128 + 2)."""

COMMAND_MODULES = ("helia_aot", "helia_aot.cli")
"""The ``python -m`` targets that run the command."""


def is_the_command() -> bool:
    """Whether this process was started as the command rather than by a program importing us."""
    if os.path.basename(sys.argv[0]).split(".")[0] == "helia-aot":
        return True
    argv = list(getattr(sys, "orig_argv", ()))
    return any(flag == "-m" and name in COMMAND_MODULES for flag, name in zip(argv, argv[1:], strict=False))


def exit_interrupted(signum: int, frame: FrameType | None) -> None:
    """Say "interrupted" on stderr (without rich, which may be half imported) and exit 130."""
    try:
        sys.stderr.write("Error: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(EXIT_INTERRUPTED)


def quiet_interrupts_while_starting() -> None:
    """Install :func:`exit_interrupted` for SIGINT when this process is the command, runs in the
    main thread and still has Python's default handler."""
    if threading.current_thread() is not threading.main_thread() or not is_the_command():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, exit_interrupted)


__all__ = ["EXIT_INTERRUPTED", "exit_interrupted", "is_the_command", "quiet_interrupts_while_starting"]
