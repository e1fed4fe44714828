"""``helia-aot test``: convert with the self-test, build it, run it, and say PASS or what differed.

Without this command a user writes a ``main`` that calls ``<prefix>_test_case_run`` and finds the
include folders and compiler flags by hand. Here the module is converted with ``test.enabled`` into
a temporary folder (removed afterwards unless ``--keep-work-dir``), compiled with the host ``gcc``
or, for ``--target m55`` / ``m4``, with ``arm-none-eabi-gcc`` and the project's bare-metal harness
(``helia_aot.testing.cross``), and run natively or under QEMU. The self-test's own lines (one per
run whose output went beyond its bound) are printed, then a table of every output (values compared,
how many differ, the largest difference, the verdict: bit-exact, within tolerance with its bound,
or mismatch) and a last line, ``PASS: <verdict>`` or ``FAIL: <why>``. The exit code is 0 for
bit-exact and within tolerance, 1 for a mismatch (with ``--exact``, for anything but bit-exact), so
a script or CI job can gate on it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import typer
from rich.console import Console, JustifyMethod
from rich.table import Table

from helia_aot.cli.convert import _fallback_verbosity, run_conversion
from helia_aot.cli.errors import error_console, reported_errors
from helia_aot.cli.flags import flag_signature, overrides_from_flags
from helia_aot.config import load_config
from helia_aot.errors import InvalidConfigError, SelfTestBuildError
from helia_aot.testing.run_targets import TARGETS, check_tools, compiler_output, refuse_foreign_core
from helia_aot.testing.verdict import BIT_EXACT, MISMATCH, SelfTestReport, parse_self_test

HOST_TIMEOUT = 300.0
QEMU_TIMEOUT = 600.0

HELP = """Convert a model with its self-test, build it, run it, and print PASS or each output's mismatches.

Takes every flag of helia-aot convert (the module is written to a temporary folder, kept with --keep-work-dir) plus --target: host (gcc), m55 or m4 (arm-none-eabi-gcc and qemu-system-arm, the project's bare-metal harness), and --exact. The golden data is --test.golden-data, or inputs and outputs made by the LiteRT reference interpreter. Each output's verdict is bit-exact, within tolerance (the bound of --test.tolerance / --test.tolerance-ulp) or mismatch; bool and index outputs are compared exactly. Exit code 0: every output bit-exact or within tolerance (with --exact: bit-exact); 1: a mismatch, or a failed build or run; 2: a usage problem or a missing tool.

  helia-aot test --model.path kws.tflite --target host

  helia-aot test --path kws.yaml --test.golden-data kws_golden.npz --target m55
"""  # noqa: E501 - one line per paragraph: the help formatter wraps them to the terminal


def build_and_run(module_dir: Path, build_dir: Path, prefix: str, target: str) -> tuple[bool, str]:
    """Build the module's self-test for ``target`` and run it: (passed, the program's output)."""
    if target == "host":
        from helia_aot.testing.host import build_module

        try:
            exe = build_module(
                module_dir, build_dir, prefix=prefix, sanitize=False, cc=os.environ.get("CC", "gcc")
            )
        except subprocess.CalledProcessError as error:
            raise SelfTestBuildError(
                "the module's self-test did not compile with the host compiler:\n" + compiler_output(error),
                hint="this is a bug in helia-aot or a plugin; rerun with --keep-work-dir and report it",
            ) from error
        try:
            proc = subprocess.run(
                [str(exe)], capture_output=True, text=True, timeout=HOST_TIMEOUT, check=False
            )
        except subprocess.TimeoutExpired:
            return False, f"the self-test did not finish within {HOST_TIMEOUT:.0f} s"
        output = proc.stdout + proc.stderr
        return proc.returncode == 0 and "PASS" in proc.stdout, output
    from helia_aot.testing import cross

    try:
        elf = cross.cross_build_module(module_dir, build_dir, target, prefix=prefix)
    except subprocess.CalledProcessError as error:
        raise SelfTestBuildError(
            f"the module's self-test did not compile for {target} with arm-none-eabi-gcc:\n"
            + compiler_output(error),
            hint="this is a bug in helia-aot or a plugin; rerun with --keep-work-dir and report it",
        ) from error
    run = cross.run_qemu(elf, target, timeout=QEMU_TIMEOUT, count=False)
    output = run.stdout
    if run.timed_out:
        output += f"\nthe self-test did not finish within {QEMU_TIMEOUT:.0f} s under QEMU"
    elif run.fault:
        output += f"\nthe core took an unexpected exception (status {run.returncode})"
    return run.passed, output


def verdict_table(report: SelfTestReport) -> Table:
    """Each compared output's row: values compared, how many differ, the largest difference, the
    verdict and the bound it was judged by."""
    table = Table(title=None, show_edge=False, pad_edge=False)
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("output", "right"),
        ("type", "left"),
        ("compared", "right"),
        ("differ", "right"),
        ("max diff", "right"),
        ("verdict", "left"),
        ("bound", "left"),
    )
    for column, justify in columns:
        table.add_column(column, justify=justify)
    for out in report.outputs:
        diff = f"{out.max_diff:g}" + ("" if out.max_ulp is None else f" ({out.max_ulp} ULP)")
        bound = out.bound + (f"; {out.beyond} beyond" if out.beyond else "")
        table.add_row(str(out.index), out.dtype, str(out.compared), str(out.differ), diff, out.verdict, bound)
    return table


def judge(passed: bool, report: SelfTestReport, *, exact: bool) -> tuple[bool, str]:
    """The command's outcome from the run and its verdict lines: (passed, the last line)."""
    if not passed or report.verdict is None:
        why = report.verdict if report.verdict is not None else "the self-test did not finish"
        return False, f"FAIL: {why}"
    if report.verdict == MISMATCH:
        return False, f"FAIL: {MISMATCH}"
    if exact and report.verdict != BIT_EXACT:
        return False, f"FAIL: {report.verdict}, not bit-exact (--exact)"
    return True, f"PASS: {report.verdict}"


def run_self_test(target: str, flags: dict[str, Any], stdout: Console, *, exact: bool = False) -> bool:
    """Convert, build and run; print the self-test's lines, its verdict table and PASS/FAIL;
    return whether it passed (with ``exact``, only a bit-exact run passes)."""
    config_path, overrides = overrides_from_flags(flags)
    work = Path(tempfile.mkdtemp(prefix="helia-aot-test-"))
    keep = False
    try:
        overrides.update({"test.enabled": True, "module.path": str(work / "module"), "force": False})
        overrides["dry_run"] = False  # the self-test needs the module written
        config = load_config(config_path, overrides)
        keep = bool(config.keep_work_dir)
        check_tools(target)
        stderr = error_console()
        result = run_conversion(config, stderr)
        refuse_foreign_core(result.plan, target)
        module_dir = Path(result.output)
        if config.verbose >= 1:
            stderr.print(f"Building the self-test for {target} ...", markup=False)
        passed, output = build_and_run(module_dir, work / "build", config.module.prefix, target)
        report = parse_self_test(output)
        verdict_lines = {f"{config.module.prefix}_test_case: output "}
        for line in output.splitlines():
            if line.strip() and not any(line.startswith(head) for head in verdict_lines):
                stdout.print(line, markup=False)
        if report.outputs:
            stdout.print(verdict_table(report))
        passed, last = judge(passed, report, exact=exact)
        stdout.print(last, markup=False)
        if keep:
            stderr.print(f"Kept the module and its build in {work}", markup=False)
        return passed
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)


def test_command(**flags: Any) -> None:
    """Run ``helia-aot test`` (flags arrive by parameter name, ``target`` and ``exact`` among them)."""
    target = str(flags.pop("target") or "host").lower()
    exact = bool(flags.pop("exact", False))
    state: dict[str, int] = {"verbose": 1}
    with reported_errors(lambda: state["verbose"]):
        if target not in TARGETS:
            raise InvalidConfigError(
                f"--target {target!r} is not one of {', '.join(TARGETS)}",
                hint="choose host (this machine), m55 (Apollo5/510 under QEMU) or m4 (Apollo3/4 under QEMU)",
            )
        state["verbose"] = _fallback_verbosity(overrides_from_flags(flags)[1])
        passed = run_self_test(target, flags, Console(highlight=False, soft_wrap=True), exact=exact)
    raise typer.Exit(0 if passed else 1)


def _signature() -> Any:
    import inspect
    from typing import Annotated

    target = inspect.Parameter(
        "target",
        inspect.Parameter.KEYWORD_ONLY,
        default="host",
        annotation=Annotated[
            str,
            typer.Option(
                "--target",
                metavar="<host|m55|m4>",
                help="Where the self-test runs: host (gcc), m55 or m4 (arm-none-eabi-gcc under QEMU)",
                rich_help_panel="test",
            ),
        ],
    )
    exact = inspect.Parameter(
        "exact",
        inspect.Parameter.KEYWORD_ONLY,
        default=False,
        annotation=Annotated[
            bool,
            typer.Option(
                "--exact",
                help="Fail unless every output is bit-exact (a difference within the tolerance fails too)",
                rich_help_panel="test",
            ),
        ],
    )
    base = flag_signature()
    return base.replace(parameters=[target, exact, *base.parameters.values()])


test_command.__signature__ = _signature()  # type: ignore[attr-defined]

__all__ = [
    "HELP",
    "TARGETS",
    "build_and_run",
    "check_tools",
    "compiler_output",
    "judge",
    "run_self_test",
    "test_command",
    "verdict_table",
]
