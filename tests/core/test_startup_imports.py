"""What a conversion loads, pinned: start-up cost is most of a small model's conversion (issue 17).

A command-line conversion from flags must not import what it does not use: YAML (only for a
``--path`` file, a flag value that is not plain text, or ``--verbose 2``), Pygments (Mako's HTML
traceback colouring), the reference interpreter and float32 twin (only for a module with a test),
the HTML report (only with ``documentation.html`` or in a notebook). Compiled templates are
cached between runs by path and contents, so an edit made within the same second is still seen.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

from helia_aot import AotConverter, ConvertArgs
from helia_aot.codegen import templates
from helia_aot.pipeline.collector import collector_paused

KWS = Path(__file__).resolve().parents[1] / "data" / "models" / "mlperf_kws_dscnn_int8.tflite"
RELU = KWS.with_name("relu_int8.tflite")
UNUSED = ("yaml", "pygments", "helia_aot.golden", "helia_aot.interpreters", "helia_aot.pipeline.html_report")


def test_cli_conversion_imports_only_what_it_uses(tmp_path):
    """Also pinned: no child process (``find_library`` ran ``ldconfig`` at import), one BLAS thread
    unless the environment asks for more, and Export renaming the staged tree instead of copying
    every file."""
    script = (
        "import os, shutil, sys, json\n"
        "events = []\n"
        "sys.addaudithook(lambda event, args: event in ('subprocess.Popen', 'os.posix_spawn', 'os.fork',"
        " 'os.exec', 'os.system') and events.append(event))\n"
        "copies = []\n"
        "real_copyfile = shutil.copyfile\n"
        "shutil.copyfile = lambda *a, **k: copies.append(a) or real_copyfile(*a, **k)\n"
        "from helia_aot.cli import app\n"
        f"sys.argv = ['helia-aot', 'convert', '--model.path', {str(KWS)!r}, '--module.path', "
        f"{str(tmp_path / 'out')!r}]\n"
        "try:\n    app()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        f"unused = sorted(m for m in {UNUSED!r} if m in sys.modules)\n"
        "print(json.dumps([unused, events, os.environ.get('OPENBLAS_NUM_THREADS'), len(copies)]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    unused, spawned, blas_threads, copies = json.loads(run.stdout.strip().splitlines()[-1])
    assert unused == []
    assert spawned == []
    assert blas_threads == "1"
    assert copies == 0, "the module staged in /tmp is renamed into the (same-device) destination"
    assert (tmp_path / "out").is_dir()


def test_compiled_templates_follow_edits_and_can_be_off(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv(templates.CACHE_ENV, str(folder))
    templates.compiled_template_dir.cache_clear()
    try:
        page = tmp_path / "t" / "page.mako"
        page.parent.mkdir()
        page.write_text("first ${x}\n")
        stamp = os.stat(page).st_mtime_ns
        assert templates.TemplateRenderer([page.parent]).render("page.mako", x=1) == "first 1\n"
        assert len(list(folder.glob("*.py"))) == 1
        page.write_text("second ${x}\n")
        os.utime(page, ns=(stamp, stamp))  # same mtime: only the contents tell the edit apart
        assert templates.TemplateRenderer([page.parent]).render("page.mako", x=2) == "second 2\n"
        assert len(list(folder.glob("*.py"))) == 2
        monkeypatch.setenv(templates.CACHE_ENV, "off")
        templates.compiled_template_dir.cache_clear()
        assert templates.compiled_template_dir() is None
        assert templates.TemplateRenderer([page.parent]).render("page.mako", x=3) == "second 3\n"
    finally:
        templates.compiled_template_dir.cache_clear()


def test_the_collector_is_paused_during_a_conversion_and_restored(tmp_path):
    """The cyclic collector is off while the stages run (see helia_aot.pipeline.collector) and is
    back on afterwards; a caller that turned it off keeps it off."""
    seen: list[bool] = []

    class Observer:
        def stage_started(self, stage: str) -> None:
            seen.append(gc.isenabled())

        def stage_finished(self, stage: str, seconds: float) -> None:
            seen.append(gc.isenabled())

    config = ConvertArgs.model_validate(
        {"model": {"path": str(RELU)}, "module": {"path": str(tmp_path / "m")}}
    )
    assert gc.isenabled()
    AotConverter(config, observers=[Observer()]).convert()
    assert seen and not any(seen) and gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_cli_conversion_imports_only_the_operator_modules_its_model_uses(tmp_path):
    """With the operator index written (any earlier run writes it), a KWS conversion imports the
    eight operator modules its operators and the built-in transforms use, not the pack's 41; and
    pydantic's plugin scan is off for the command (helia_aot.cli.PYDANTIC_PLUGINS)."""
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    env["HELIA_AOT_OPERATOR_INDEX"] = str(tmp_path / "index")
    warm = "from helia_aot.registry import build_default_registry_context; build_default_registry_context()"
    subprocess.run([sys.executable, "-c", warm], check=True, env=env, timeout=120)
    script = (
        "import os, sys, json\n"
        "from helia_aot.cli import app\n"
        f"sys.argv = ['helia-aot', 'convert', '--model.path', {str(KWS)!r}, '--module.path', "
        f"{str(tmp_path / 'out')!r}, '--verbose', '0']\n"
        "try:\n    app()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "prefix = 'helia_aot_ops_builtin.ops.'\n"
        "ops = sorted(m[len(prefix) :] for m in sys.modules if m.startswith(prefix))\n"
        "print(json.dumps([ops, os.environ.get('PYDANTIC_DISABLE_PLUGINS')]))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    ops, plugins = json.loads(run.stdout.strip().splitlines()[-1])
    assert plugins == "__all__"
    assert {"conv", "fully_connected", "pool", "softmax"} <= set(ops)
    assert not {"lstm", "gru", "svdf", "control_flow", "resize", "gather_nd"} & set(ops)
    assert len(ops) <= 10, ops


def test_the_command_runs_with_the_collector_off_and_leaves_it_as_it_found_it():
    """The command's imports are frozen out of the collector (so its first collection does not
    walk them), the command runs with it off, and an in-process caller gets it back on."""
    script = (
        "import gc, json, sys\n"
        "from helia_aot.cli import app, main  # the typer app is imported when first named\n"
        "app_module = sys.modules['helia_aot.cli.app']  # helia_aot.cli.app is also the Typer app's name\n"
        "seen = [gc.get_freeze_count() > 0, gc.isenabled()]\n"
        "real = app_module.version_text\n"
        "app_module.version_text = lambda: seen.append(gc.isenabled()) or real()\n"
        "sys.argv = ['helia-aot', 'version']\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "print(json.dumps(seen + [gc.isenabled()]))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == [True, True, False, True]


def test_cli_conversion_reads_the_model_without_the_flatc_bindings(tmp_path):
    """The 1 MB ``schema_py_generated`` (10-15 ms to import) stays out of a conversion, and so does
    the flatbuffers runtime it needs: the loader reads tables with ``struct`` from the
    ``schema_tables`` layouts into ``helia_aot.litert.objects`` classes. A model with a fused
    activation, options and per-channel quantization still converts (KWS)."""
    script = (
        "import sys, json\n"
        "from helia_aot.cli import app\n"
        f"sys.argv = ['helia-aot', 'convert', '--model.path', {str(KWS)!r}, '--module.path', "
        f"{str(tmp_path / 'out')!r}]\n"
        "try:\n    app()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "names = sorted(m for m in sys.modules if m.startswith(('helia_aot.litert', 'flatbuffers')))\n"
        "print(json.dumps(names))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    litert_modules = json.loads(run.stdout.strip().splitlines()[-1])
    assert "helia_aot.litert.schema_py_generated" not in litert_modules
    assert not [m for m in litert_modules if m.startswith("flatbuffers")]
    assert "helia_aot.litert.schema_tables" in litert_modules and "helia_aot.litert.objects" in litert_modules
    assert (tmp_path / "out").is_dir()
