"""``helia-aot validate``: the module and LiteRT on a dataset, error metrics per output.

``helia-aot test`` runs the golden self-test (one sample by default) and says PASS or FAIL; this
command measures: it takes every ``convert`` flag plus where to run (``--target``), what to run on
(``--inputs`` or ``--samples`` generated ones), and prints per output the max and mean absolute
error, relative L2, cosine similarity, exact-match rate and, for a classifier, top-1 agreement,
against LiteRT's reference kernels and its optimized ones. The work is
:func:`helia_aot.validation.validate`; it is imported only when the command runs.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from helia_aot.cli.convert import _fallback_verbosity
from helia_aot.cli.errors import error_console, reported_errors
from helia_aot.cli.flags import flag_signature, overrides_from_flags
from helia_aot.config import load_config

HELP = """Convert a model, run the module and LiteRT on a dataset, and print each output's error metrics.

Takes every convert flag (the module is written to a temporary folder, kept with --keep-work-dir) plus --target (host: gcc; m55 or m4: arm-none-eabi-gcc under QEMU), --inputs (an .npz with input_0... or the inputs' names, or a folder of .npy files; samples stacked on the first axis), or --samples N generated over each input's range (--input-range LOW HIGH for float inputs, --seed). Each output is compared with LiteRT's reference kernels (helia-aot's exactness claim, judged by --test.tolerance as helia-aot test judges it) and with its optimized kernels (what Interpreter() runs; their known int8 rounding differences are explained under the table): max and mean absolute error (quantization steps for integer outputs), relative L2, cosine similarity, exact-match rate and top-1 agreement for classifiers. --json prints one JSON document, --html PATH writes an HTML page, --module-report PATH adds the results as a Validation section of a module report (<prefix>_report.html of the same plan, which convert --documentation.html writes; a later run replaces the section). Exit code 0: every output bit-exact or within tolerance of the reference (with --exact: bit-exact); 1: a mismatch, or a failed build or run; 2: a usage problem, unreadable or ill-shaped inputs, or a missing tool.

  helia-aot validate --model.path kws.tflite --samples 100

  helia-aot validate --path kws.yaml --inputs features.npz --target m55 --json > kws_validation.json
"""  # noqa: E501 - one line per paragraph: the help formatter wraps them to the terminal


def validate_command(
    target: str = "host",
    inputs: Path | None = None,
    samples: int | None = None,
    seed: int = 0,
    input_range: tuple[float, float] = (-1.0, 1.0),
    as_json: bool = False,
    html: Path | None = None,
    exact: bool = False,
    module_report: Path | None = None,
    **flags: Any,
) -> None:
    """Run ``helia-aot validate`` (the convert flags arrive by parameter name, as for convert)."""
    state: dict[str, int] = {"verbose": 1}
    with reported_errors(lambda: state["verbose"]):
        from helia_aot.validation import validate

        config_path, overrides = overrides_from_flags(flags)
        state["verbose"] = _fallback_verbosity(overrides)
        config = load_config(config_path, overrides)
        state["verbose"] = config.verbose
        if module_report is not None:  # before the run: a wrong path should not cost one
            from helia_aot.validation.html_page import read_module_report

            read_module_report(module_report)
        stderr = error_console()
        modules: list[Path] = []
        with _progress_bars(stderr, enabled=config.verbose >= 1) as progress:
            report = validate(
                config,
                inputs=inputs,
                samples=samples,
                target=target,
                seed=seed,
                input_range=(float(input_range[0]), float(input_range[1])),
                progress=progress,
                converted=lambda result: modules.append(Path(result.output)),
            )
        if config.keep_work_dir and modules:
            # validate writes the module to <work>/module/<name> and builds in <work>/build.
            stderr.print(f"Kept the module and its build in {modules[0].parent.parent}", markup=False)
        if html is not None:
            from helia_aot.validation.html_page import validation_page

            html.parent.mkdir(parents=True, exist_ok=True)
            html.write_text(validation_page(report), encoding="utf-8", newline="\n")
        if module_report is not None:
            from helia_aot.validation.html_page import add_to_module_report

            add_to_module_report(report, module_report)
            if config.verbose >= 1 and not as_json:
                stderr.print(f"Added the validation section to {module_report}", markup=False)
        if as_json:
            typer.echo(json.dumps(report.to_json(exact=exact), indent=2))
        else:
            stdout = Console(highlight=False)
            stdout.print(report)
            stdout.print(report.summary_line(exact=exact), markup=False, soft_wrap=True)
        raise typer.Exit(0 if report.passed(exact=exact) else 1)


class _progress_bars:  # noqa: N801 - used as a context manager, named like one
    """Rich progress bars on stderr, one per stage (convert, reference, optimized, module), while
    ``validate`` runs; nothing when disabled or when stderr is not a terminal."""

    _LABELS = {
        "convert": "convert",
        "reference": "LiteRT reference kernels",
        "optimized": "LiteRT optimized kernels",
        "module": "module (build and run)",
    }

    def __init__(self, console: Console, *, enabled: bool) -> None:
        self.console = console
        self.enabled = enabled and console.is_terminal
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}

    def __enter__(self) -> Any:
        if not self.enabled:
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
        )
        self._progress.start()
        return self.update

    def update(self, stage: str, done: int, total: int) -> None:
        if stage not in self._tasks:
            self._tasks[stage] = self._progress.add_task(self._LABELS.get(stage, stage), total=total)
        self._progress.update(self._tasks[stage], completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()


def _option(name: str, default: Any, annotation: Any, option: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[annotation, option]
    )


def _signature() -> inspect.Signature:
    panel = "validate"
    extra = [
        _option(
            "target",
            "host",
            str,
            typer.Option(
                "--target",
                metavar="<host|m55|m4>",
                help="Where the module runs: host (gcc), m55 or m4 (arm-none-eabi-gcc under QEMU)",
                rich_help_panel=panel,
            ),
        ),
        _option(
            "inputs",
            None,
            Path | None,
            typer.Option(
                "--inputs",
                help="An .npz (input_0... or the inputs' names) or a folder of .npy files; "
                "without it, --samples generated samples",
                rich_help_panel=panel,
                show_default=False,
            ),
        ),
        _option(
            "samples",
            None,
            int | None,
            typer.Option(
                "--samples",
                help="Samples to generate (default 10), or the most to take from --inputs",
                rich_help_panel=panel,
                show_default=False,
            ),
        ),
        _option(
            "seed",
            0,
            int,
            typer.Option("--seed", help="Seed of the generated samples", rich_help_panel=panel),
        ),
        _option(
            "input_range",
            (-1.0, 1.0),
            tuple[float, float],
            typer.Option(
                "--input-range",
                metavar="LOW HIGH",
                help="Range of generated float inputs (integer inputs span their type)",
                rich_help_panel=panel,
            ),
        ),
        _option(
            "as_json",
            False,
            bool,
            typer.Option(
                "--json", help="Print one JSON document instead of the table", rich_help_panel=panel
            ),
        ),
        _option(
            "html",
            None,
            Path | None,
            typer.Option(
                "--html",
                help="Also write the results as an HTML page (beside the module report)",
                rich_help_panel=panel,
                show_default=False,
            ),
        ),
        _option(
            "module_report",
            None,
            Path | None,
            typer.Option(
                "--module-report",
                help="Also add the results as a Validation section of this module report "
                "(<prefix>_report.html, written by convert --documentation.html for the same plan)",
                rich_help_panel=panel,
                show_default=False,
            ),
        ),
        _option(
            "exact",
            False,
            bool,
            typer.Option(
                "--exact",
                help="Fail unless every output is bit-exact with the reference kernels",
                rich_help_panel=panel,
            ),
        ),
    ]
    return inspect.Signature([*extra, *flag_signature().parameters.values()])


validate_command.__signature__ = _signature()  # type: ignore[attr-defined]

__all__ = ["HELP", "validate_command"]
