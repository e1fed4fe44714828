"""Several converted modules linked into one test program (each with its own prefix).

Every module carries its own copy of the kernels it uses, renamed to its prefix, so one program
can hold many models; a generated ``main`` runs each module's golden self test and prints one
verdict line per model. Used to run many models per cross build (one QEMU boot per core).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from helia_aot import AotConverter, ConvertArgs
from helia_aot.registry import build_default_registry_context
from helia_aot.testing import corpus_golden_to_npz

from .corpus import (
    CORE_FLOAT_ULP,
    expected_outputs,
    golden_path,
    is_integer_model,
    manifest,
    model_path,
    require_informative,
)


@dataclass(slots=True)
class Module:
    name: str
    prefix: str
    path: Path

    @property
    def sources(self) -> list[Path]:
        return sorted((self.path / "src").rglob("*.c"))

    @property
    def include_dirs(self) -> list[Path]:
        return [self.path / "includes-api", self.path / "src" / "kernels"]


def convert_models(names: Sequence[str], root: Path, *, core: str) -> list[Module]:
    """Convert each corpus model with its golden self test, prefixes ``m0``, ``m1``, ...

    The modules are for cross builds on ``core`` (or ``"host"``): float outputs must be within
    ``CORE_FLOAT_ULP[core]`` of the reference (exact on the host), integer outputs exact. A model
    whose golden outputs do not depend on its inputs is refused (ValueError).
    """
    for name in names:
        require_informative(name)
    entries = {e["name"]: e for e in manifest()}
    registry = build_default_registry_context()
    modules = []
    for i, name in enumerate(names):
        entry = entries[name]
        work = root / name
        work.mkdir()
        golden = corpus_golden_to_npz(
            golden_path(entry), work / "golden.npz", outputs=expected_outputs(entry)
        )
        config = ConvertArgs.model_validate(
            {
                "model": {"path": str(model_path(entry))},
                "module": {"path": str(work), "name": "module", "prefix": f"m{i}"},
                "test": {
                    "enabled": True,
                    "golden_data": str(golden),
                    "tolerance": 0.0,
                    # Integer outputs exact; float outputs within the core's ULP bound.
                    "tolerance_ulp": None if is_integer_model(entry) else CORE_FLOAT_ULP.get(core, 0),
                },
            }
        )
        result = AotConverter(config, registry).convert()
        modules.append(Module(name, result.prefix, Path(result.output)))
    return modules


def write_main(modules: Sequence[Module], path: Path) -> Path:
    """A main that runs every module's golden test and prints ``<model>: PASS|FAIL`` lines."""
    includes = "".join(f'#include "{m.prefix}_test_case.h"\n' for m in modules)
    runs = "".join(
        f"    status = {m.prefix}_test_case_run();\n"
        f'    printf("{m.name}: %s\\n", status == 0 ? "PASS" : "FAIL");\n'
        f"    failures += status != 0;\n"
        for m in modules
    )
    path.write_text(f"""#include <stdint.h>
#include <stdio.h>
{includes}
int main(void)
{{
    int failures = 0;
    int32_t status;
{runs}    printf("%d failing\\n", failures);
    return failures;
}}
""")
    return path


def check_verdicts(stdout: str, modules: Sequence[Module]) -> None:
    for m in modules:
        assert f"{m.name}: PASS" in stdout, stdout
    assert "0 failing" in stdout, stdout
