"""Several models, one image: two modules bound to one scratch buffer (issue 32, deliverable 3).

Why: modules linked into one program that run one after another never need two models'
activations at once, so one buffer as large as the largest need serves them all. The set is
planned together (``convert_shared`` / ``helia-aot convert-set``): each module leaves its scratch
region to the application, states the shared size and the model that sets it, and keeps its
constants. A program links two corpus models, binds the same buffer to both, interleaves their
runs over every golden sample (each run overwrites the other model's activations) and must match
the reference interpreter bit for bit, under ASan/UBSan on the host and on the Cortex-M55 under
QEMU; no symbol of one module may clash with the other's.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.cli.app import app
from helia_aot.errors import InvalidConfigError
from helia_aot.shared_arena import convert_shared
from helia_aot.testing import cross_build_program, run_qemu
from helia_aot.testing.host import HOST_CFLAGS, SANITIZE_FLAGS
from typer.testing import CliRunner

from .corpus import golden_path, manifest, model_path, require_informative

MODELS = ("mlperf_kws_dscnn_int8_probe", "mlperf_ic_resnet8_int8")
"""Two informative int8 corpus models: KWS (every layer's output a model output, checked) and
ResNet-8."""


def _config(name: str, index: int, out: Path, **extra: object) -> ConvertArgs:
    entry = {e["name"]: e for e in manifest()}[name]
    return ConvertArgs.model_validate(
        {
            "model": {"path": str(model_path(entry))},
            "module": {"path": str(out), "name": f"model{index}", "prefix": f"m{index}"},
            "verbose": 0,
            **extra,
        }
    )


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    out = tmp_path_factory.mktemp("shared")
    for name in MODELS:
        require_informative(name)
    return convert_shared([_config(name, i, out) for i, name in enumerate(MODELS)])


def _c_bytes(array: np.ndarray) -> str:
    data = np.ascontiguousarray(array).view(np.uint8).ravel()
    return ", ".join(str(int(b)) for b in data)


def shared_main(result, path: Path) -> Path:
    """A program that binds one buffer to every module's scratch region, then runs the models one
    after another on each golden sample and counts the outputs that differ from the reference."""
    entries = {e["name"]: e for e in manifest()}
    (memory,) = result.size
    decls, setup, runs = [], [], []
    for name, converted in zip(MODELS, result.results, strict=True):
        p = converted.prefix
        with np.load(golden_path(entries[name])) as golden:
            inputs = [golden[k] for k in sorted(golden.files) if k.startswith("in_")]
            outputs = [
                golden[f"ref_out_{j}"] for j in range(len([k for k in golden.files if "ref_out" in k]))
            ]
        samples = inputs[0].shape[0]
        for s in range(samples):
            for i, array in enumerate(inputs):
                decls.append(f"static const uint8_t {p}_in_{s}_{i}[] = {{{_c_bytes(array[s])}}};")
            for j, array in enumerate(outputs):
                decls.append(f"static const uint8_t {p}_out_{s}_{j}[] = {{{_c_bytes(array[s])}}};")
        decls.append(f"static {p}_model_context_t {p}_ctx;")
        setup.append(
            f"    if ({p}_bind_arena({p}_arena_{memory}, shared, sizeof(shared)) != 0) return 2;\n"
            f"    if ({p}_model_init(&{p}_ctx) != 0) return 3;\n"
            f"    if ({p}_ctx.arena_buffers[{p}_arena_{memory}] != shared) return 4;\n"
        )
        for s in range(samples):
            body = [f"    /* {name}, sample {s} */"]
            for i in range(len(inputs)):
                body.append(f"    memcpy({p}_ctx.inputs[{i}].data, {p}_in_{s}_{i}, sizeof({p}_in_{s}_{i}));")
            body.append(f"    if ({p}_model_run(&{p}_ctx) != 0) return 5;")
            for j in range(len(outputs)):
                body.append(
                    f"    if (memcmp({p}_ctx.outputs[{j}].data, {p}_out_{s}_{j},"
                    f" sizeof({p}_out_{s}_{j})) != 0)"
                    f' {{ printf("{name} sample {s} output {j} differs\\n"); ++failures; }}'
                )
            runs.append((s, "\n".join(body)))
    first = result.results[0].prefix
    body = "\n".join(text for _, text in sorted(runs, key=lambda run: run[0]))
    path.write_text(
        "#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n"
        + "".join(f'#include "{r.prefix}_model.h"\n' for r in result.results)
        + f"\nstatic uint8_t shared[{first}_shared_arena_{memory}_size] __attribute__((aligned(64)));\n"
        + "\n".join(decls)
        + "\n\nint main(void)\n{\n    int failures = 0;\n"
        + "".join(setup)
        + body
        + '\n    printf("%d failing\\n", failures);\n    return failures;\n}\n'
    )
    return path


def _sources(result) -> list[Path]:
    return [s for r in result.results for s in sorted((Path(r.output) / "src").rglob("*.c"))]


def _module_dirs(module: Path) -> tuple[Path, Path]:
    return module / "includes-api", module / "src" / "kernels"


def _includes(result) -> list[Path]:
    return [
        d
        for r in result.results
        for d in (Path(r.output) / "includes-api", Path(r.output) / "src" / "kernels")
    ]


def test_the_shared_size_is_the_largest_need_and_each_report_says_who_sets_it(shared):
    needs = shared.needs
    assert set(needs) == {"model0", "model1"}
    (memory,) = shared.size
    assert shared.size[memory] == max(n[memory] for n in needs.values())
    setter = max(needs, key=lambda m: needs[m][memory])
    assert shared.set_by == {memory: setter}
    for result in shared.results:
        report = json.loads((Path(result.output) / f"{result.prefix}_report.json").read_text())
        (row,) = report["shared_arena"]["regions"]
        assert report["shared_arena"]["modules"] == ["model0", "model1"]
        assert row == {
            "memory": memory,
            "size": shared.size[memory],
            "own": needs[str(result.config.module.name)][memory],
            "set_by": setter,
        }
        header = (Path(result.output) / "includes-api" / f"{result.prefix}_tensors.h").read_text()
        assert f"#define {result.prefix}_shared_arena_{memory}_size {shared.size[memory]}" in header
        # The module defines no scratch buffer of its own; its constants stay in the module.
        tensors_c = (Path(result.output) / "src" / f"{result.prefix}_tensors.c").read_text()
        assert f"{result.prefix}_arena_{memory}_buffer" not in tensors_c
        assert f"[{result.prefix}_arena_const_{memory}] = " in tensors_c


def test_two_modules_share_one_buffer_bit_exact_on_the_host(shared, tmp_path):
    main = shared_main(shared, tmp_path / "main.c")
    flags = [*HOST_CFLAGS, *SANITIZE_FLAGS, *(f"-I{d}" for d in _includes(shared))]
    objects = []
    for i, source in enumerate([*_sources(shared), main]):
        obj = tmp_path / f"{i}_{source.stem}.o"
        subprocess.run(["gcc", *flags, "-c", str(source), "-o", str(obj)], check=True, capture_output=True)
        objects.append(obj)
    # No clash: every global symbol a module defines starts with its own prefix.
    symbols = subprocess.run(
        ["nm", "-g", "--defined-only", *map(str, objects[:-1])], capture_output=True, text=True, check=True
    ).stdout.split()
    defined = [s for s in symbols if s.startswith(("m0_", "m1_")) or s.startswith("hk_")]
    assert not [s for s in defined if s.startswith("hk_")]
    assert len(defined) == len(set(defined))
    exe = tmp_path / "shared"
    subprocess.run(
        ["gcc", *flags, *map(str, objects), "-o", str(exe), "-lm"], check=True, capture_output=True
    )
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 failing" in run.stdout


@pytest.mark.cross
def test_two_modules_share_one_buffer_bit_exact_on_the_m55(shared, tmp_path):
    main = shared_main(shared, tmp_path / "main.c")
    elf = cross_build_program(
        [main, *_sources(shared)], tmp_path / "m55", "m55", include_dirs=_includes(shared), opt="-O2"
    )
    run = run_qemu(elf, "m55", timeout=300, count=False)
    assert run.returncode == 0 and "0 failing" in run.stdout, run.stdout


def test_a_set_needs_two_models_with_their_own_prefixes(tmp_path):
    one = _config(MODELS[0], 0, tmp_path)
    with pytest.raises(InvalidConfigError, match="two or more models"):
        convert_shared([one])
    twin = _config(MODELS[1], 0, tmp_path / "other")
    with pytest.raises(InvalidConfigError, match="module.prefix 'm0'"):
        convert_shared([one, twin])


def test_convert_set_plans_the_set_on_the_command_line(tmp_path):
    paths = []
    for i, name in enumerate(MODELS):
        entry = {e["name"]: e for e in manifest()}[name]
        path = tmp_path / f"{i}.yaml"
        path.write_text(
            f"model: {{path: {model_path(entry)}}}\n"
            f"module: {{path: {tmp_path / 'out'}, name: model{i}, prefix: m{i}}}\n"
        )
        paths += ["--path", str(path)]
    run = CliRunner().invoke(app, ["convert-set", *paths, "--dry-run"])
    assert run.exit_code == 0, run.output
    rows = [line.split("│") for line in run.output.splitlines() if line.count("│") > 4]
    cells = [[c.strip() for c in row if c.strip()] for row in rows]
    assert [c[0] for c in cells] == ["model0", "model1"]
    (shared_size,) = {c[3] for c in cells}
    (setter,) = {c[4] for c in cells}
    assert [c[0] for c in cells if c[2] == shared_size] == [setter]
    assert not (tmp_path / "out").exists()  # --dry-run writes nothing


def test_a_set_needs_an_output_per_model(tmp_path):
    one = _config(MODELS[0], 0, tmp_path)
    other = _config(MODELS[1], 1, tmp_path).model_copy(
        update={"module": one.module.model_copy(update={"prefix": "m1"})}
    )
    with pytest.raises(InvalidConfigError, match="both use output"):
        convert_shared([one, other])


def test_the_sets_constants_are_placed_together_against_each_memory(tmp_path):
    # A DTCM of 100 KiB holds either model's constants and scratch, not both models' constants
    # beside the shared scratch: placed as if alone, the image would not fit.
    cap = 100 * 1024
    constraints = {"constraints": [{"name": "dtcm", "max_size": cap}, {"name": "sram"}]}
    configs = [_config(name, i, tmp_path, memory=constraints, dry_run=True) for i, name in enumerate(MODELS)]
    alone = [AotConverter(config).convert().arenas for config in configs]

    def dtcm(arenas, role):
        return sum(a["total_size"] for a in arenas if a["memory"] == "DTCM" and a["role"] == role)

    assert all(dtcm(a, "constant") + dtcm(a, "scratch") <= cap for a in alone)
    assert sum(dtcm(a, "constant") for a in alone) + max(dtcm(a, "scratch") for a in alone) > cap
    result = convert_shared(configs)
    held = sum(dtcm(r.arenas, "constant") + dtcm(r.arenas, "persistent") for r in result.results)
    assert held + result.size.get("DTCM", 0) <= cap
    # Each module was told what the other holds there, and kept its constants within its share.
    for index, converted in enumerate(result.results):
        shared = converted.config.memory.shared_arena
        other = result.results[1 - index].arenas
        assert shared.reserved["dtcm"] >= dtcm(other, "constant") + dtcm(other, "persistent")
        assert dtcm(converted.arenas, "constant") <= shared.constants["dtcm"]
