"""``helia-aot app``: convert a model with its self-test and write a board application around it.

It takes every ``convert`` flag plus ``--app.path DIR`` (where the application goes),
``--platform NAME`` (short for ``--platform.name``) and ``--app.layout`` (the build system: plain
CMake, neuralSPOT or Zephyr); the module is written to ``DIR/module/``
whatever ``--module.path`` says, converted with ``test.enabled`` so the app carries golden data.
The layout itself is :mod:`helia_aot.testing.board_app`.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import shutil
from pathlib import Path
from typing import Annotated, Any

import typer

from helia_aot.cli.convert import _fallback_verbosity, run_conversion
from helia_aot.cli.errors import error_console, reported_errors
from helia_aot.cli.flags import flag_signature, overrides_from_flags
from helia_aot.cli.profile import target_for
from helia_aot.config import load_config
from helia_aot.errors import ForeignOutputError, InvalidConfigError, OutputExistsError

HELP = """Convert a model with its golden self-test and write a ready-to-build Cortex-M application around it.

Takes every convert flag plus --app.path DIR (the application's folder; an existing non-empty one is refused unless --force), --platform NAME (short for --platform.name), --app.layout (cmake, the default: a plain CMake project; neuralspot: a neuralSPOT apps/ folder with its module.mk; zephyr: a Zephyr application with prj.conf and the module as a Zephyr module) and --modeled-cycles (profile the module under QEMU as helia-aot profile does, and print its modeled cycles per operator beside the measured ones). Every layout has the module (in DIR/module/), the same main program (runs the golden self-test and prints "outputs check: pass" or FAIL, then one inference with the cycles of every operator and their total from the DWT cycle counter, which reads 0 under QEMU), app_port.h (how the build system prints and starts) and a README with its build commands. The cmake layout adds board/ (startup code, semihosted printf and the linker script of the core's QEMU board), cmake/arm-none-eabi.cmake and CMakeLists.txt, and runs under QEMU as written. The core follows the platform: Cortex-M55 for Apollo5/510, Cortex-M4 for Apollo3/4.

  helia-aot app --model.path kws.tflite --platform apollo510_evb --app.path kws_app/

  cmake -S kws_app -B kws_app/build -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake

  helia-aot app --model.path kws.tflite --platform apollo510_evb --app.path kws_zephyr --app.layout zephyr
"""  # noqa: E501 - one line per paragraph: the help formatter wraps them to the terminal


def _refuse_existing(app_dir: Path, force: bool) -> None:
    """A non-empty ``app_dir`` is refused without ``--force``; with it, only an app this command
    wrote (its marker file present) is replaced, so a user's own folder is never deleted."""
    if app_dir.is_file():
        raise OutputExistsError(
            f"--app.path {app_dir} is a file", hint="give --app.path a folder (it is created if missing)"
        )
    if app_dir.is_dir() and any(app_dir.iterdir()):
        if not force:
            raise OutputExistsError(
                f"--app.path {app_dir} exists and is not empty",
                hint="choose another folder, or add --force to replace it",
            )
        from helia_aot.testing.board_app import (
            APP_MARKER,
        )  # the layout's module, loaded when the command runs

        if not (app_dir / APP_MARKER).is_file():
            raise ForeignOutputError(
                f"--app.path {app_dir} is not an application helia-aot app wrote; --force leaves it alone",
                hint="choose another folder, or empty this one yourself",
            )
        shutil.rmtree(app_dir)


def _layout(name: str) -> str:
    """The app layout ``--app.layout`` names, or a usage error listing them."""
    from helia_aot.testing.board_app import LAYOUTS

    layout = name.strip().lower()
    if layout not in LAYOUTS:
        close = difflib.get_close_matches(layout, LAYOUTS, n=1)
        raise InvalidConfigError(
            f"--app.layout {name!r} is not one of {', '.join(LAYOUTS)}",
            hint=(f"did you mean {close[0]}? " if close else "")
            + "cmake: a plain CMake project; neuralspot: a neuralSPOT apps/ folder; "
            "zephyr: a Zephyr application",
        )
    return layout


def _module_type_overrides(config: Any, layout: str) -> dict[str, Any]:
    """The ``module.type`` of the layout's module, refusing one the user chose for another."""
    from helia_aot.testing.board_app import MODULE_TYPES

    wanted = MODULE_TYPES[layout]
    module_type = str(getattr(config.module.type, "value", config.module.type))
    if module_type not in ("cmake", wanted):  # cmake is the default, so it may be no one's choice
        others = [name for name, kind in MODULE_TYPES.items() if kind == module_type]
        raise InvalidConfigError(
            f"helia-aot app --app.layout {layout} converts the module as module.type {wanted!r}, "
            f"not module.type {module_type!r}",
            hint=f"write the app with --app.layout {others[0]}"
            if others
            else f"leave --module.type out: the {layout} layout sets it",
        )
    return {"module.type": wanted}


def app_command(
    app_path: Path | None = None,
    platform: str | None = None,
    modeled_cycles: bool = False,
    app_layout: str = "cmake",
    **flags: Any,
) -> None:
    """Run ``helia-aot app`` (the convert flags arrive by parameter name, as for convert)."""
    state: dict[str, int] = {"verbose": 1}
    with reported_errors(lambda: state["verbose"]):
        if app_path is None:
            raise InvalidConfigError(
                "helia-aot app needs --app.path, the folder to write the application to",
                hint="add --app.path my_app/",
            )
        layout = _layout(app_layout)
        config_path, overrides = overrides_from_flags(flags)
        state["verbose"] = _fallback_verbosity(overrides)
        if platform is not None:
            overrides["platform.name"] = platform
        app_dir = Path(app_path)
        config = load_config(config_path, overrides)
        state["verbose"] = config.verbose
        if not config.memory.allocate_arenas or config.memory.shared_arena.enabled:
            raise InvalidConfigError(
                "helia-aot app binds the module's own arenas; memory.allocate_arenas is off or "
                "memory.shared_arena is on",
                hint="write the app without them, then bind your own buffers in its main.c",
            )
        type_overrides = _module_type_overrides(config, layout)
        if getattr(config.module.schedule, "value", config.module.schedule) == "static":
            raise InvalidConfigError(
                "the app times each operator through the operator callback, which module.schedule "
                "'static' leaves out",
                hint="write the app with --module.schedule table (the default)",
            )
        if modeled_cycles:
            importlib.import_module("helia_aot.testing.profiling").require_profiling_tools()
        _refuse_existing(app_dir, bool(config.force))
        config = load_config(
            config_path,
            {
                **overrides,
                **type_overrides,
                "test.enabled": True,
                "module.path": str(app_dir / "module"),
                "force": False,
                "dry_run": False,
            },
        )
        stderr = error_console()
        result = run_conversion(config, stderr)
        from helia_aot.testing.board_app import modeled_from_profile, write_board_app

        core = target_for(result.plan, None)
        modeled = None
        if modeled_cycles:
            if config.verbose >= 1:
                stderr.print(f"Modeling the cycles on {core} under QEMU ...", markup=False)
            profiling = importlib.import_module("helia_aot.testing.profiling")
            modeled = modeled_from_profile(profiling.profile_module(Path(result.output), result.plan, core))
        platform_name = result.plan.platform.name
        app = write_board_app(app_dir, Path(result.output), result.plan, core, platform_name, modeled, layout)
        if config.verbose >= 1:
            stderr.print(f"Wrote the {core} application ({layout} layout) to {app.path}", markup=False)
        typer.echo(str(app.path))


APP_PATH_OPTION = typer.Option(
    "--app.path",
    help="Folder to write the application to (refused when not empty, unless --force).",
    show_default=False,
)
MODELED_OPTION = typer.Option(
    "--modeled-cycles",
    help="Also print the cycles helia-aot models for each operator beside the DWT counter's "
    "(profiles the module under QEMU while writing the app).",
)
LAYOUT_OPTION = typer.Option(
    "--app.layout",
    help="The application's build system: cmake (a plain CMake project that runs under QEMU), "
    "neuralspot (a neuralSPOT apps/ folder with module.mk) or zephyr (a Zephyr application).",
)
PLATFORM_OPTION = typer.Option(
    "--platform", help="Platform to build for (short for --platform.name).", show_default=False
)

app_command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [
        inspect.Parameter(
            "app_path",
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=Annotated[Path | None, APP_PATH_OPTION],
        ),
        inspect.Parameter(
            "platform",
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=Annotated[str | None, PLATFORM_OPTION],
        ),
        inspect.Parameter(
            "app_layout",
            inspect.Parameter.KEYWORD_ONLY,
            default="cmake",
            annotation=Annotated[str, LAYOUT_OPTION],
        ),
        inspect.Parameter(
            "modeled_cycles",
            inspect.Parameter.KEYWORD_ONLY,
            default=False,
            annotation=Annotated[bool, MODELED_OPTION],
        ),
        *flag_signature().parameters.values(),
    ]
)

__all__ = ["HELP", "app_command"]
