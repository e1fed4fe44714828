"""FULLY_CONNECTED whose requantized values pass int32 matches LiteRT on the Cortex-M55 too.

LiteRT's reference converts ``round(acc * scale)`` with ``static_cast<int32_t>``, which on x86-64
gives INT32_MIN for any value beyond int32 (graph fuzzer finding 1:292). The M55 rounds with VCVTA,
which saturates instead; ``hk_fc_requant`` checks its INT32_MAX again, and the packed int8 paths,
which keep VCVTA alone, are only used where the converter proves the difference cannot show
(``fc_integer_requant.saturation_free``: an output offset other than 0, or no value beyond int32
at all); other int8 layers call the row-major loop. Here one-layer models whose effective scales
push most values past int32 (int8 with output zero point 0, which takes the row-major loop; int8
with output zero point 3, which stays packed; int16, whose zero point is always 0) are converted
with LiteRT's outputs as golden data and run under QEMU on the M55 with Helium: every output must
match bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import CORES, cross_build_program, run_qemu

from .linked import Module, check_verdicts, write_main

pytestmark = [pytest.mark.cross]

# (activation dtype, output zero point, whether the packed int8 kernel may run it)
SPECS = (("int8", 0, False), ("int8", 3, True), ("int16", 0, False))
DEPTH, UNITS = 16, 8


def overflow_model(path: Path, dtype: str, zp_out: int, seed: int) -> Path:
    """One FULLY_CONNECTED layer whose effective scale (about 2.5e5 for int8, 1e4 for int16) puts
    about half its requantized values beyond int32, either way."""
    rng = np.random.default_rng(seed)
    s_in, s_w = (0.05, 0.05) if dtype == "int8" else (0.001, 0.01)
    s_out = 1e-8 if dtype == "int8" else 1e-9
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (2, DEPTH), dtype, quantization=(s_in, 0))
    w = b.add_tensor(
        "w",
        (UNITS, DEPTH),
        "int8",
        data=rng.integers(-127, 128, (UNITS, DEPTH)),
        quantization=(np.full(UNITS, s_w, np.float32), np.zeros(UNITS), 0),
    )
    bias_type = "int32" if dtype == "int8" else "int64"
    bias = b.add_tensor(
        "b",
        (UNITS,),
        bias_type,
        data=rng.integers(-300, 300, UNITS),
        quantization=(np.full(UNITS, s_in * s_w, np.float32), np.zeros(UNITS), 0),
    )
    y = b.add_tensor("y", (2, UNITS), dtype, quantization=(s_out, zp_out))
    b.add_operator("FULLY_CONNECTED", [x, w, bias], [y], litert.FullyConnectedOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


@pytest.fixture(scope="module")
def modules(tmp_path_factory) -> list[Module]:
    root = tmp_path_factory.mktemp("fc_overflow")
    out = []
    for i, (dtype, zp_out, _) in enumerate(SPECS):
        work = root / f"fc{i}"
        work.mkdir()
        config = {
            "model": {"path": str(overflow_model(work / "model.tflite", dtype, zp_out, seed=i))},
            "module": {"path": str(work / "module"), "name": "module", "prefix": f"o{i}"},
            "platform": {"name": "apollo510_evb"},
            "test": {"enabled": True, "samples": 3, "tolerance": 0.0},
        }
        result = AotConverter(ConvertArgs.model_validate(config)).convert()
        out.append(Module(f"ofc{i}", result.prefix, Path(result.output)))
    return out


def test_only_layers_where_saturation_cannot_show_take_the_packed_kernel(modules):
    for (dtype, _, packed), module in zip(SPECS, modules):
        text = "".join(p.read_text() for p in (module.path / "src").glob("*fully_connected*.c"))
        if dtype == "int8":
            assert ("fully_connected_s8_generic(" in text) != packed, module.name
            assert ("packed_filter" in text) == packed, module.name


def test_values_beyond_int32_match_the_reference_on_the_m55(modules, tmp_path):
    core = CORES["m55"]
    main = write_main(modules, tmp_path / "main.c")
    sources = [main, *(s for m in modules for s in m.sources)]
    include_dirs = [d for m in modules for d in m.include_dirs]
    elf = cross_build_program(sources, tmp_path / "build", core, include_dirs=include_dirs, opt="-O2")
    run = run_qemu(elf, core, timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    check_verdicts(run.stdout, modules)
