"""Wall time of a command-line conversion, ours against the released product's when it is installed.

Each model is converted by ``helia-aot convert --model.path M --module.path OUT --force`` (the
same flags for both), alternating ours and the product's so that both see the same machine load,
``--repeat`` times each after one uncounted warm-up (which lets both write their bytecode and
template caches, and ours its operator index, as any second run on a user's machine would find
them). Medians are printed with their ratio; the goal is at most 0.40 (issue 17). Then a chain of
int8 1x1 convolutions (``helia_aot.testing.conv_chain``) shows how conversion time grows with the
model: 100 and 1,000 layers, median of ``--repeat`` runs after a warm-up (goal: 1,000 layers in at
most 2.0 s and at most 12x the 100-layer time).

    python bench/conversion_time.py                       # KWS and VWW, 5 runs each, chains
    python bench/conversion_time.py --repeat 3 --no-chain
    python bench/conversion_time.py --product /opt/helia-aot/bin/helia-aot

The product is looked for at ``--product``, ``$HELIA_AOT_PRODUCT``, then /tmp/product/bin/helia-aot;
without it only our times are printed, with a note. Wall time depends on the machine and its
load: compare ratios from one run, not figures from different ones.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[1] / "tests" / "data" / "models"
MODELS = {
    "kws": "mlperf_kws_dscnn_int8.tflite",
    "vww": "mlperf_vww_mobilenetv1_025_int8.tflite",
}
DEFAULT_PRODUCT = Path("/tmp/product/bin/helia-aot")
GOAL_RATIO = 0.40
CHAIN_LAYERS = (100, 1000)


def product_command(explicit: str | None) -> list[str] | None:
    """The released product's ``helia-aot``, or None when it is not installed."""
    for candidate in (explicit, os.environ.get("HELIA_AOT_PRODUCT"), str(DEFAULT_PRODUCT)):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return [candidate]
    return None


def our_command() -> list[str]:
    return [sys.executable, "-m", "helia_aot"]


def _env() -> dict[str, str]:
    # Bytecode caches on for both: a user's installation has them (the product ships them).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["COLUMNS"] = "120"
    return env


def convert_seconds(command: Sequence[str], model: Path, out: Path) -> float:
    """Wall seconds of one conversion; raises when it fails."""
    started = time.perf_counter()
    proc = subprocess.run(
        [*command, "convert", "--model.path", str(model), "--module.path", str(out), "--force"],
        capture_output=True,
        text=True,
        env=_env(),
    )
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed on {model.name}:\n{proc.stderr[-2000:]}")
    return seconds


def medians(model: Path, work: Path, repeat: int, product: list[str] | None) -> tuple[float, float | None]:
    """Median wall seconds of ours and the product's (None without it), runs interleaved."""
    commands = {"ours": our_command(), **({"product": product} if product else {})}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for name, command in commands.items():  # warm-up, uncounted
        convert_seconds(command, model, work / name)
    for _ in range(repeat):
        for name, command in commands.items():
            times[name].append(convert_seconds(command, model, work / name))
    ours = statistics.median(times["ours"])
    return ours, statistics.median(times["product"]) if product else None


def chain_seconds(layers: int, work: Path, command: Sequence[str], repeat: int) -> float:
    """Median wall seconds of converting a chain of ``layers`` 1x1 convolutions into a new
    folder, after one uncounted warm-up run (one cold run on a shared machine says little). Each
    run writes a folder of its own: replacing an existing module first deletes its ~2,000 files,
    which measures the file system rather than the conversion."""
    from helia_aot.testing.conv_chain import conv_chain_model

    model = work / f"chain{layers}.tflite"
    if not model.exists():
        conv_chain_model(layers, model)
    base = f"chain{layers}_{abs(hash(tuple(command)))}"
    runs = [convert_seconds(command, model, work / f"{base}_{i}") for i in range(repeat + 1)]
    return statistics.median(runs[1:])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated: " + ", ".join(MODELS))
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per model and tool (default 5)")
    parser.add_argument("--product", help="the product's helia-aot executable")
    parser.add_argument("--no-chain", action="store_true", help="skip the 100/1,000-layer chains")
    parser.add_argument("--product-chain", action="store_true", help="also time the product on the chains")
    args = parser.parse_args(argv)
    product = product_command(args.product)
    if product is None:
        print("note: the product's helia-aot is not installed (--product, $HELIA_AOT_PRODUCT); ours only")
    names = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in names if m not in MODELS]
    if unknown:
        parser.error(f"unknown model: {', '.join(unknown)}")
    work = Path(tempfile.mkdtemp(prefix="helia_aot_conversion_time_"))
    ok = True
    try:
        print(f"{'model':8} {'ours s':>8} {'product s':>10} {'ratio':>6}  goal <= {GOAL_RATIO:.2f}")
        for name in names:
            ours, theirs = medians(DATA_DIR / MODELS[name], work / name, args.repeat, product)
            if theirs is None:
                print(f"{name:8} {ours:8.2f} {'-':>10} {'-':>6}")
                continue
            ratio = ours / theirs
            ok &= ratio <= GOAL_RATIO
            print(
                f"{name:8} {ours:8.2f} {theirs:10.2f} {ratio:6.2f}  {'ok' if ratio <= GOAL_RATIO else 'OVER'}"
            )
        if not args.no_chain:
            print()
            small, large = (chain_seconds(n, work, our_command(), args.repeat) for n in CHAIN_LAYERS)
            growth = large / small
            ok &= large <= 2.0 and growth <= 12
            print(
                f"chain of 1x1 convolutions: {CHAIN_LAYERS[0]} layers {small:.2f} s, "
                f"{CHAIN_LAYERS[1]} layers {large:.2f} s ({growth:.1f}x; goal <= 2.0 s and <= 12x)"
            )
            if product and args.product_chain:
                p_small, p_large = (chain_seconds(n, work, product, args.repeat) for n in CHAIN_LAYERS)
                print(f"product: {p_small:.2f} s and {p_large:.2f} s ({p_large / p_small:.1f}x)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
