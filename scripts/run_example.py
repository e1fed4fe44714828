"""The main job on the bundled example: convert KWS int8, build it with gcc, check it against LiteRT.

Run through ``scripts/setup.sh example``. The model is the DS-CNN probe (every layer's output is
also a model output: with untrained weights the class scores alone hardly depend on the input, so
only the layers' outputs make a wrong layer visible). The golden data is the LiteRT reference
interpreter's output on three recorded inputs (examples/kws/kws_int8_probe_golden.npz); the
module's own self test compares all twelve outputs with them at tolerance 0 (convert.yaml), and
the script says "bit for bit" only when the self-test's verdict is bit-exact.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import HeliaAotError
from helia_aot.testing import run_module_test_case
from rich.console import Console

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "kws"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="module folder's parent (default: the repository's out/)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a configuration key of convert.yaml, e.g. --set test.tolerance=1 (a YAML value)",
    )
    args = parser.parse_args(argv)
    console = Console()
    # Relative paths in a configuration resolve from the working directory (as heliaAOT 1.1 does),
    # so the example runs from its own folder, where convert.yaml names its model and golden data.
    os.chdir(EXAMPLE)
    overrides = {} if args.out is None else {"module.path": str(args.out.resolve())}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key.strip()] = yaml.safe_load(value)
    try:
        config = ConvertArgs.from_yaml(EXAMPLE / "convert.yaml", overrides=overrides)
        result = AotConverter(config).convert()
    except HeliaAotError as error:
        console.print(f"[red]Error:[/] {error.message}\nhint: {error.hint}")
        return error.exit_code
    console.print(f"module written to [bold]{result.output.resolve()}[/]")
    for arena in result.arenas:
        bound = f" (planner lower bound {arena['peak_live']} B)" if arena["peak_live"] is not None else ""
        console.print(
            f"  arena {arena['region']} {arena['role']:<10} {arena['memory']:<5} {arena['used']:>8} B{bound}"
        )
    with tempfile.TemporaryDirectory() as build:
        try:
            run = run_module_test_case(result.output, Path(build), prefix=result.prefix)
        except subprocess.CalledProcessError as error:
            console.print(f"[red]the module did not compile:[/]\n{error.stderr[-3000:]}")
            return 1
    console.print(run.stdout.rstrip(), markup=False, highlight=False, soft_wrap=True)
    report = run.report
    if run.passed and report.bit_exact:
        console.print("[green]match:[/] the C module's outputs equal the LiteRT reference bit for bit")
        return 0
    if run.passed:
        # A tolerance above 0 in convert.yaml: a PASS, but not the bit-exact claim.
        console.print(
            f"[yellow]pass, {report.verdict}:[/] some of the C module's outputs differ from the LiteRT "
            "reference (the lines above say which and by how much)",
            soft_wrap=True,
        )
        return 0
    console.print(f"[red]{report.verdict or 'mismatch'}[/]\n{run.stderr[-2000:]}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
