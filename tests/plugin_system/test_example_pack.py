"""plugins-example installed with pip and driven as a user would: the CLI, the run script, its tests.

The CLI converts the example model with no Python code, the module builds on the host and matches
the golden data, the Python API with the pack's customizer writes the identical module, and the
pack's own test suite (which uses helia_aot.testing) passes against the installed pack.
"""

from __future__ import annotations

import json
import shutil
import sys

from helia_aot.testing import run_module_test_case

from .example_pack import ENTRY_POINT


def tree(folder):
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_cli_converts_and_the_module_matches_the_golden_data(example_pack, tmp_path):
    example = shutil.copytree(example_pack.source / "example", tmp_path / "example")
    listing = example_pack.run(["helia-aot", "plugins", "--json"], cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    plugins = {p["name"]: p for p in json.loads(listing.stdout)}
    assert plugins[ENTRY_POINT]["distribution"] == "helia-aot-example-ops"
    assert plugins[ENTRY_POINT]["registered"]["aot_operator_classes"] == ["CUSTOM_NOOP", "EXAMPLE_GAIN_CLIP"]

    # The file's relative paths resolve from the working directory, as the product resolves them.
    proc = example_pack.run(["helia-aot", "convert", "--path", "convert.yaml"], cwd=example)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    module = example / "out" / "gain_clip_module"
    run = run_module_test_case(module, tmp_path / "build", prefix="gc")
    assert run.passed, run.stdout + run.stderr
    assert "gc_test_case: PASS (3 sample(s), 1 output(s))" in run.stdout
    cli_tree = tree(module)

    # The notebook route: the same customizer through build_default_registry_context.
    script = example_pack.run([sys.executable, "run.py", "--customizer"], cwd=example)
    assert script.returncode == 0, script.stdout + script.stderr
    assert "match: the module's outputs equal the golden data bit for bit" in script.stdout
    assert tree(module) == cli_tree


def test_the_pack_test_suite_passes(example_pack):
    proc = example_pack.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=example_pack.source
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and "skipped" not in proc.stdout
