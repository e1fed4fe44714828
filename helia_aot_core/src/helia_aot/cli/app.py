"""The ``helia-aot`` command: ``convert``, ``plugins`` and ``platforms``."""

from __future__ import annotations

import typer

from helia_aot.cli.convert import HELP as CONVERT_HELP
from helia_aot.cli.convert import convert
from helia_aot.cli.flags import DottedFlagsCommand
from helia_aot.cli.listing import platforms_app, plugins_command
from helia_aot.plugins.manager import distribution_version
from helia_aot.version import __version__

DISTRIBUTION = "helia-aot-core"


def core_version() -> str:
    """The installed helia-aot-core version, or the package's own when it is not installed."""
    return distribution_version(DISTRIBUTION) or __version__


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"helia-aot {core_version()}")
        raise typer.Exit()


app = typer.Typer(
    name="helia-aot",
    help="Compile LiteRT models into self-contained C inference modules for Ambiq Apollo MCUs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        help="Print the helia-aot-core version and exit.",
        is_eager=True,
        callback=_show_version,
    ),
) -> None:
    """Compile LiteRT models into self-contained C inference modules for Ambiq Apollo MCUs."""


app.command("convert", cls=DottedFlagsCommand, help=CONVERT_HELP)(convert)
app.command("plugins")(plugins_command)
app.add_typer(platforms_app, name="platforms")


def main() -> None:
    """Console-script entry point (``helia-aot``)."""
    app()


__all__ = ["app", "core_version", "main"]
