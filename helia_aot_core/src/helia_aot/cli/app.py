"""The ``helia-aot`` command: ``version``, ``convert``, ``test``, ``validate``, ``profile``,
``app``, ``platforms``, ``plugins``, ``sweep``, ``convert-set``, ``ops``, ``check`` and ``docs``.

The product's commands keep its names: ``version``, and ``list-targets`` / ``target-info --name``
as deprecated aliases of ``platforms list`` / ``platforms show`` (each warns on stderr, so the
listing on stdout stays what a script reads). ``-h`` is ``--help`` on every command.
"""

from __future__ import annotations

import typer

from helia_aot.cli.board_app import HELP as APP_HELP
from helia_aot.cli.board_app import app_command
from helia_aot.cli.convert import HELP as CONVERT_HELP
from helia_aot.cli.convert import convert
from helia_aot.cli.convert_set import convert_set_command
from helia_aot.cli.docs import docs_command
from helia_aot.cli.dotted_command import DottedFlagsCommand
from helia_aot.cli.flags import flag_signature
from helia_aot.cli.listing import platforms_app, platforms_list, platforms_show, plugins_command
from helia_aot.cli.profile import HELP as PROFILE_HELP
from helia_aot.cli.profile import profile
from helia_aot.cli.selftest import HELP as TEST_HELP
from helia_aot.cli.selftest import test_command
from helia_aot.cli.support import check_command, ops_command
from helia_aot.cli.sweep import sweep_command
from helia_aot.cli.validate import HELP as VALIDATE_HELP
from helia_aot.cli.validate import validate_command
from helia_aot.plugins.manager import distribution_version
from helia_aot.version import __version__

DISTRIBUTION = "helia-aot-core"


def core_version() -> str:
    """The installed helia-aot-core version, or the package's own when it is not installed."""
    return distribution_version(DISTRIBUTION) or __version__


def version_text() -> str:
    """What ``helia-aot version`` and ``--version`` print (the product's wording, our version)."""
    return f"heliaAOT version: {core_version()}"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit()


HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}
"""``-h`` and ``--help`` on the root and (inherited through click's context) every command."""

app = typer.Typer(
    name="helia-aot",
    help="Compile LiteRT models into self-contained C inference modules for Ambiq Apollo MCUs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings=HELP_OPTIONS,
)


def _deprecated(command: str, replacement: str) -> None:
    typer.echo(
        f"Warning: 'helia-aot {command}' is deprecated and will be removed in 2.0; "
        f"use 'helia-aot {replacement}' instead.",
        err=True,
    )


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        help="Print the helia-aot version and exit.",
        is_eager=True,
        callback=_show_version,
    ),
) -> None:
    """Compile LiteRT models into self-contained C inference modules for Ambiq Apollo MCUs."""


@app.command("version")
def version_command() -> None:
    """Display the version of helia-aot."""
    typer.echo(version_text())


@app.command("list-targets")
def list_targets() -> None:
    """Deprecated alias of platforms list, removed in 2.0."""
    _deprecated("list-targets", "platforms list")
    platforms_list(as_json=False, enabled=None, disabled=None)


@app.command("target-info")
def target_info(
    name: str = typer.Option(..., "--name", help="Registered platform name, as reported by platforms list."),
) -> None:
    """Deprecated alias of platforms show NAME, removed in 2.0."""
    _deprecated("target-info", "platforms show NAME")
    platforms_show(name=name, as_json=False, enabled=None, disabled=None)


# The options typer builds for convert: one per configuration key (set here, not in cli.convert,
# because the options are typer objects and a plain convert line runs without typer).
convert.__signature__ = flag_signature()  # type: ignore[attr-defined]
app.command("convert", cls=DottedFlagsCommand, help=CONVERT_HELP)(convert)
app.command("test", cls=DottedFlagsCommand, help=TEST_HELP)(test_command)
app.command("validate", cls=DottedFlagsCommand, help=VALIDATE_HELP)(validate_command)
app.add_typer(platforms_app, name="platforms")
app.command("plugins")(plugins_command)
app.command("profile", cls=DottedFlagsCommand, help=PROFILE_HELP)(profile)
app.command("app", cls=DottedFlagsCommand, help=APP_HELP)(app_command)
app.command("sweep")(sweep_command)
app.command("convert-set")(convert_set_command)
app.command("ops")(ops_command)
app.command("check")(check_command)
app.command("docs")(docs_command)


__all__ = ["app", "core_version", "version_text"]
