"""The click command class of ``convert``, ``test`` and ``profile``: flags normalised first.

Kept apart from :mod:`helia_aot.cli.flags` because it subclasses typer's command, and the flag
table is also read by command lines parsed without typer (:mod:`helia_aot.cli.direct`).
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand

from helia_aot.cli.flags import normalise_args


class DottedFlagsCommand(TyperCommand):
    """The ``convert`` command: flag spellings and list values normalised before click parses."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, normalise_args(args))


__all__ = ["DottedFlagsCommand"]
