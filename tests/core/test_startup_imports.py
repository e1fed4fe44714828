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

from helia_aot_ops_builtin import families

KWS = Path(__file__).resolve().parents[1] / "data" / "models" / "mlperf_kws_dscnn_int8.tflite"
RELU = KWS.with_name("relu_int8.tflite")
# onnx: the ONNX front end (installed in the test venv) registers its loader without importing it.
UNUSED = (
    "yaml",
    "pygments",
    "helia_aot.golden",
    "helia_aot.interpreters",
    "helia_aot.pipeline.html_report",
    "onnx",
    "helia_aot_frontend_onnx.reader",
)


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
        "ops = sorted(m.rsplit('.', 1)[1] for m, v in list(sys.modules.items())\n"
        "             if m.startswith('helia_aot_ops_builtin.') and hasattr(v, 'REGISTRATIONS'))\n"
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


PRINTING_AND_DISCOVERY_UNUSED = (
    "importlib_metadata",  # the backport: entry points come from the standard library's module
    "zipp",
    "email.parser",  # distribution names and versions come from METADATA's header lines
    "email.feedparser",
    "email.headerregistry",
    "rich._emoji_codes",  # the results panel hands rich Text, never markup with emoji codes
    "rich.logging",  # RichHandler is made when a record is first shown (none in this run)
    "helia_aot_ops_builtin.recurrent.gru_fusion",  # the pack's model hooks import these for a model that
    "helia_aot_ops_builtin.control_flow.resource_variables",  # has a WHILE / VAR_HANDLE or CALL_ONCE operator
)


def test_cli_conversion_reads_plugins_and_prints_without_unused_modules(tmp_path):
    """Plugin discovery and the CLI's printing (issue 17): a default-verbosity conversion, whose
    results panel and stage lines are printed, imports none of PRINTING_AND_DISCOVERY_UNUSED and
    still finds both installed packs."""
    script = (
        "import sys, json\n"
        "from helia_aot.cli import app\n"
        f"sys.argv = ['helia-aot', 'convert', '--model.path', {str(KWS)!r}, '--module.path', "
        f"{str(tmp_path / 'out')!r}]\n"
        "try:\n    app()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "from helia_aot.plugins import plugin_host\n"
        "names = [record.name for record in plugin_host().records]\n"
        f"unused = sorted(m for m in {PRINTING_AND_DISCOVERY_UNUSED!r} if m in sys.modules)\n"
        "print(json.dumps([unused, names]))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "Conversion finished" in run.stdout and "✓ emit" in run.stderr
    unused, names = json.loads(run.stdout.strip().splitlines()[-1])
    assert unused == []
    # The ONNX front end loads too where it is installed (it imports no onnx for a LiteRT model).
    assert [name for name in names if name != "onnx"] == ["core", "apollo", "ops_builtin"]


def test_cli_conversion_builds_no_plan_or_report_reader(tmp_path):
    """A command-line conversion, written or dry run, never imports the plan and report readers
    (``helia_aot.optimization.records``: ~30 pydantic models, a twentieth of a KWS conversion):
    the command prints a ConversionSummary taken from the records Emit wrote. Nor the memory
    plan's public records (``helia_aot.memory.defines``), which a conversion does not use. The
    pydantic models with a built schema afterwards are the configuration's, the measurement
    tables' and the transform options' (pinned as modules, so a model added elsewhere shows here)."""
    script = (
        "import json, sys\n"
        "from helia_aot.cli import app\n"
        "for extra in ([], ['--dry-run']):\n"
        f"    sys.argv = ['helia-aot', 'convert', '--model.path', {str(KWS)!r}, '--module.path', "
        f"{str(tmp_path / 'out')!r}, '--force', '--verbose', '0'] + extra\n"
        "    try:\n        app()\n    except SystemExit as e:\n        assert not e.code, e.code\n"
        "from pydantic import BaseModel\n"
        "def models(cls):\n"
        "    for sub in cls.__subclasses__():\n"
        "        yield sub\n"
        "        yield from models(sub)\n"
        "built = {f'{m.__module__}.{m.__qualname__}' for m in models(BaseModel) if m.__pydantic_complete__}\n"
        "loaded = [m for m in sys.modules if m.startswith(('helia_aot.optimization.', 'helia_aot.memory'))]\n"
        "print(json.dumps([sorted(loaded), sorted(built)]))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    loaded, built = json.loads(run.stdout.strip().splitlines()[-1])
    assert "helia_aot.optimization.records" not in loaded
    assert "helia_aot.memory.defines" not in loaded
    assert {"helia_aot.optimization.record_constants", "helia_aot.memory.planners"} <= set(loaded)
    assert "helia_aot.config.args.ConvertArgs" in built
    allowed = ("helia_aot.config.", "helia_aot.optimization.measure", "helia_aot.transforms.")
    assert [name for name in built if not name.startswith(allowed) and ".transforms." not in name] == []


# Modules a KWS conversion (int8, no test, goal latency) never needs: the model builder (tests and
# plugin authors), goal size's order search, band arithmetic, in-place row candidates and unfolded
# loop entries, the result's table row, the golden test case's records, the activation tables (int8
# SOFTMAX takes its scaling from softmax_scaling.py), the data movers and the operator modules only
# other models' operators use (the transforms that run on every model import them when they fold
# one).
KWS_UNUSED = (
    "helia_aot.litert.builder",
    "helia_aot.memory.patches",
    "helia_aot.memory.schedule",
    "helia_aot.pipeline.inplace_rows",
    "helia_aot.pipeline.summary",
    "helia_aot.pipeline.test_case",
    "helia_aot_ops_builtin.activation.activation_quantization",
    "helia_aot_ops_builtin.common.int4_weights",
    "helia_aot_ops_builtin.data_movement.layout",
    "helia_aot_ops_builtin.data_movement.movers",
    "helia_aot_ops_builtin.activation.activation",
    "helia_aot_ops_builtin.data_movement.shape",
    "helia_aot_ops_builtin.data_movement.slice",
    "helia_aot_ops_builtin.control_flow.variables",
    "helia_aot_ops_builtin.conv.unfolded_entries",
)
KWS_MODULE_BOUND = 159
"""helia_aot* modules a KWS CLI conversion imports (142 when this was pinned, was 153; the margin
leaves room for a few; 148 with ``helia_aot_ops_builtin.families``, 150 with pipeline.access_cost
(placement by bytes read) and the REMOVE_DENSIFY transform, 151 with command_start, the package's
first import, so Ctrl-C while the command starts says "interrupted", exit 130; 152 with
pipeline.bound_regions (every emit asks which regions the application binds), the UINT8_AS_INT8
transform (registered with the others) and converters.litert.parser_types (the parser types
helia_aot.pack exports), less memory.segments and fc_block_sparse, now imported where scratch
spills and where a layer is block-sparse; 155 with the model-loader registry
(converters.loaders, the LiteRT loader's record converters.litert.format and its reader
pipeline.litert_reader: issue 35), 157 where the ONNX front end is installed (its package and
plugin module register its loader; its reader and onnx stay out), 158 with the ONNX_REQUANTIZATION
transform, registered with the others, whose ONNX_* operator classes stay out, 159 with
common.kernel_cycles, the modeled-cycle table every convolution's kernel choice reads: issue
33): a new module on the path of every conversion should be one it uses (its import and its
dataclasses cost start-up time; issue 17). The built-in pack's family packages are not counted:
their ``__init__`` modules are empty, and the plugin imports each to register its operator
modules (issue 28)."""
FAMILY_PACKAGES = frozenset(f"helia_aot_ops_builtin.{name}" for name in families.FAMILY_PACKAGES)
KWS_GENERATED_METHODS_BOUND = 210
"""Methods the dataclass decorator generates for our dataclasses in a KWS CLI conversion
(``__init__``, ``__repr__``, ``__eq__``; frozen adds ``__setattr__``, ``__delattr__`` and
``__hash__``): CPython compiles each from source at import. 187 (63 classes) when this was pinned,
were 326 (85): modules load where used, and records nothing compares or prints say
``eq=False, repr=False``. The margin leaves room for a few new records."""


def test_cli_conversion_of_kws_leaves_unused_modules_and_dataclasses_out(tmp_path):
    """Each module here is imported where it is used (issue 17: every dataclass a conversion
    creates costs ~0.35 ms of start-up), so a conversion that needs none of them loads none."""
    env = dict(os.environ, HELIA_AOT_OPERATOR_INDEX=str(tmp_path / "index"))
    warm = "from helia_aot.registry import build_default_registry_context; build_default_registry_context()"
    subprocess.run([sys.executable, "-c", warm], check=True, env=env, timeout=120)
    script = (
        "import json, sys\n"
        "from helia_aot.cli import main  # the console script's entry point\n"
        f"sys.argv = ['helia-aot', 'convert', '--model.path', {str(KWS)!r}, '--module.path', "
        f"{str(tmp_path / 'out')!r}, '--verbose', '0']\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "ours = sorted(m for m in sys.modules if m.split('.')[0].startswith('helia_aot'))\n"
        "params = [v.__dataclass_params__ for m in ours for v in vars(sys.modules[m]).values()\n"
        "          if isinstance(v, type) and v.__module__ == m and '__dataclass_params__' in v.__dict__]\n"
        "made = sum(1 + p.repr + p.eq + 2 * p.frozen + (p.frozen and p.eq) for p in params)\n"
        "print(json.dumps([ours, len(params), made]))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    ours, dataclasses, generated = json.loads(run.stdout.strip().splitlines()[-1])
    assert "helia_aot.pipeline.records" in ours  # the probe sees our modules
    assert sorted(set(KWS_UNUSED) & set(ours)) == []
    counted = [m for m in ours if m not in FAMILY_PACKAGES]
    assert len(counted) <= KWS_MODULE_BOUND, len(counted)
    assert dataclasses > 0  # the probe sees our dataclasses
    assert generated <= KWS_GENERATED_METHODS_BOUND, (dataclasses, generated)


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
