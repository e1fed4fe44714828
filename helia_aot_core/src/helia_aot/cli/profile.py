"""``helia-aot profile``: convert, cross-build for a core, run under QEMU, count per operator.

It takes every ``convert`` flag (the module is written where they say, as ``convert`` would) plus
``--target m55|m4`` and ``--json``. The counting itself is ``helia_aot.testing.profiling``; it is
imported only when the command runs, so ``helia-aot --help`` and ``convert`` never load it.
"""

from __future__ import annotations

import importlib
import inspect
import json
import shutil
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from helia_aot.cli.convert import run_conversion
from helia_aot.cli.errors import error_console, reported_errors
from helia_aot.cli.flags import flag_signature, overrides_from_flags
from helia_aot.config import load_config
from helia_aot.errors import InvalidConfigError

HELP = """Convert a model, then count the instructions and model the cycles of one inference per operator under QEMU.

Takes every convert flag, plus --target (m55: Cortex-M55 with Helium, the Apollo5/510 core; m4: Cortex-M4 with DSP, Apollo3/4; default: the platform's core), --clock-mhz (run the platform at another clock: the wait states of memories outside the core's clock domain and the milliseconds follow it; default: the platform's declared clock), --json (one JSON document on stdout) and --html PATH (also write a self-contained page with a bar of modeled cycles per operator, instructions beside it). The module is cross-built at -O2 with arm-none-eabi-gcc and run on a QEMU board under the cycle model (helia-aot docs cycles); the table lists each operator's instructions, cycles, cycles per instruction and milliseconds, the runtime's (model_run's loop and the profiling callback), their total, and the module's code, constant and RAM bytes from the link map. Inputs are zero bytes. Needs arm-none-eabi-gcc with newlib and qemu-system-arm (scripts/install_cross_toolchain.sh).

  helia-aot profile --model.path kws.tflite --module.path out/ --target m55

  helia-aot profile --path kws.yaml --target m4 --json > kws_m4.json

  helia-aot profile --path kws.yaml --html kws_profile.html
"""  # noqa: E501 - one line per paragraph: the help formatter wraps them to the terminal

TARGETS = ("m55", "m4")

ARCHIVE_SUFFIXES = (".zip", ".pack")
"""module.path endings that write an archive, which profile cannot build (the default is ./output.zip)."""

_CPU_TARGET = {"cortex-m55": "m55", "cortex-m4": "m4"}


def target_for(plan: Any, target: str | None) -> str:
    """The core to profile on: ``--target``, else the converted platform's core (M55 otherwise)."""
    if target is not None:
        return target.lower()
    return _CPU_TARGET.get(str(plan.platform.cpu).lower(), "m55")


TARGET_OPTION = typer.Option(
    "--target", help="Core to run on: m55 or m4 (default: the platform's core).", show_default=False
)
JSON_OPTION = typer.Option("--json", help="Print one JSON document instead of the table.")
HTML_OPTION = typer.Option(
    "--html",
    help="Also write a page with a bar of modeled cycles per operator (self-contained HTML).",
    show_default=False,
)
CLOCK_OPTION = typer.Option(
    "--clock-mhz",
    help="Core clock to run at: the wait states and milliseconds follow it "
    "(default: the platform's declared clock).",
    show_default=False,
)


def profile(
    target: str | None = None,
    as_json: bool = False,
    clock_mhz: float | None = None,
    html: Path | None = None,
    **flags: Any,
) -> None:
    """Run ``helia-aot profile`` (the convert flags arrive by parameter name, as for convert)."""
    state: dict[str, int] = {"verbose": 1}
    if target is not None and target.lower() not in TARGETS:
        raise typer.BadParameter(f"{target!r} is not one of {', '.join(TARGETS)}", param_hint="--target")
    with reported_errors(lambda: state["verbose"]):
        config_path, overrides = overrides_from_flags(flags)
        config = load_config(config_path, overrides)
        state["verbose"] = config.verbose
        profiling = importlib.import_module("helia_aot.testing.profiling")
        profiling.require_profiling_tools()  # before converting: a missing tool fails fast
        if not config.memory.allocate_arenas:
            raise InvalidConfigError(
                "profile runs the module with its own arenas; memory.allocate_arenas is off",
                hint="profile without --no-memory.allocate-arenas (counts do not depend on who owns them)",
            )
        if config.memory.shared_arena.enabled or config.memory.bind_inputs or config.memory.bind_outputs:
            raise InvalidConfigError(
                "profile runs the module with its own arenas, inputs and outputs; memory.shared_arena, "
                "memory.bind_inputs or memory.bind_outputs leaves them to the application",
                hint="profile without them (the counts do not depend on who owns the buffers)",
            )
        if getattr(config.module.schedule, "value", config.module.schedule) == "static":
            raise InvalidConfigError(
                "profile counts per operator through the operator callback, which "
                "module.schedule 'static' leaves out",
                hint="profile with --module.schedule table (the default); per-operator counts carry over",
            )
        stderr = error_console()
        work: Path | None = None
        archive = Path(str(config.module.path))
        if archive.suffix.lower() in ARCHIVE_SUFFIXES:
            # The default module.path is an archive, and profile builds sources: the module goes to
            # a temporary folder instead, removed when the profile is printed.
            work = Path(tempfile.mkdtemp(prefix="helia-aot-profile-"))
            config = load_config(
                config_path, {**overrides, "module.path": str(work / "module"), "force": False}
            )
            if config.verbose >= 1 and not as_json:
                stderr.print(
                    f"module.path {archive} is an archive: profiling a module "
                    "built in a temporary folder (give --module.path a folder to keep it)",
                    markup=False,
                )
        try:
            _profile_converted(profiling, config, stderr, target, as_json, clock_mhz, html)
        finally:
            if work is not None:
                shutil.rmtree(work, ignore_errors=True)


def _profile_converted(
    profiling: Any,
    config: Any,
    stderr: Console,
    target: str | None,
    as_json: bool,
    clock_mhz: float | None,
    html: Path | None,
) -> None:
    """Convert with ``config``, cross-build for the core, run under QEMU and print the profile."""
    result = run_conversion(config, stderr, progress=not as_json)
    chosen = target_for(result.plan, target)
    if config.verbose >= 1 and not as_json:
        stderr.print(f"Cross-building for {chosen} and running under QEMU ...")
    report = profiling.profile_module(result.output, result.plan, chosen, clock_mhz=clock_mhz)
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2))
    else:
        Console(highlight=False, soft_wrap=True).print(profiling.format_profile(report), markup=False)
    if html is not None:
        page = importlib.import_module("helia_aot.testing.profile_html").write_profile_html(report, html)
        if config.verbose >= 1 and not as_json:
            stderr.print(f"Wrote the per-operator cycle bars to {page}", markup=False)


profile.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [
        inspect.Parameter(
            "target",
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=Annotated[str | None, TARGET_OPTION],
        ),
        inspect.Parameter(
            "as_json", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=Annotated[bool, JSON_OPTION]
        ),
        inspect.Parameter(
            "html",
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=Annotated[Path | None, HTML_OPTION],
        ),
        inspect.Parameter(
            "clock_mhz",
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=Annotated[float | None, CLOCK_OPTION],
        ),
        *flag_signature().parameters.values(),
    ]
)

__all__ = ["HELP", "TARGETS", "profile", "target_for"]
