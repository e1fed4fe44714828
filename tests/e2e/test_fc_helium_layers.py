"""The per-layer Helium FULLY_CONNECTED loops (fc_helium) pass their golden tests on every path.

On the M55 an int8 layer with constant weights, no weight zero point, units in eights and a depth
of at most 1,008 runs an assembly loop the converter writes for it (immediates for its shape,
shifts and offset; its first input chunks held in registers, the others streamed through q7 or
q0; the requantization pipelined by one block; the clamp by saturation or by VMAX/VMIN; one
weight pointer up to depth 128, two beyond); every other core keeps the kernel call. Here
one-layer models built with LiteRTModelBuilder cover that space (depths 1 to 640 with and
without a partial chunk, one and several blocks and rows, blocks before the loop and in it,
per-unit and per-tensor scales, input and output zero points at the int8 limits, no
activation, RELU, RELU6 and RELU_N1_TO_1), plus layers the loop does not take (a weight zero
point, units not in eights, depth over 1,008) beside them. Each model's golden outputs come
from LiteRT's reference interpreter; all are converted once, linked into one program, and run
under QEMU on the M55 with Helium at -O2 and -O0, the M55 without MVE, and the M4: every
output must match bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import CORES, CrossCore, cross_build_program, run_qemu

from .linked import Module, check_verdicts, write_main

pytestmark = [pytest.mark.cross]

ACT = litert.ActivationFunctionType

# (batches, depth, units, per_channel, activation, input zp, output zp, weight zp, Helium loop?)
SPECS = (
    (1, 128, 16, True, ACT.RELU, -128, -128, 0, True),  # AD's middle layers
    (1, 8, 24, True, ACT.NONE, 5, 0, 0, True),  # one partial chunk, held
    (3, 100, 8, False, ACT.RELU6, 127, -3, 0, True),  # several rows, VMAX/VMIN clamp
    (2, 1, 16, True, ACT.RELU_N1_TO_1, -128, 127, 0, True),  # depth 1
    (1, 127, 32, True, ACT.NONE, 0, -128, 0, True),  # streamed chunks, partial chunk held
    (1, 48, 8, False, ACT.RELU, -7, -100, 0, True),  # fewer chunks than held registers
    (1, 64, 16, False, ACT.NONE, 3, 0, 4, False),  # weight zero point: the kernel call
    (1, 64, 12, True, ACT.NONE, 3, 0, 0, False),  # units not in eights
    (1, 144, 8, True, ACT.NONE, 3, 0, 0, True),  # deeper: two pointers, unrolled
    (2, 250, 16, False, ACT.RELU6, -128, 10, 0, True),  # deeper, partial chunk, clamp, rows
    (1, 1024, 8, True, ACT.NONE, 3, 0, 0, False),  # deeper than the loops are written out
    (1, 32, 80, True, ACT.RELU, -128, -128, 0, True),  # a pass before the loop, four a pass
    (1, 128, 40, True, ACT.RELU6, 9, -128, 0, True),  # clamp: chunks streamed through q0, loop
    (1, 640, 24, True, ACT.RELU, -128, -128, 0, True),  # AD's first layer: q7 streams, loop
)


def fc_model(path: Path, spec: tuple, seed: int) -> Path:
    """A one-FULLY_CONNECTED int8 model whose outputs mostly fall inside the clamp."""
    batches, depth, units, per_channel, activation, zp_in, zp_out, zp_w, _ = spec
    rng = np.random.default_rng(seed)
    s_in = 0.05
    # Output steps that put a clamped activation's range across ~100 of them.
    s_out = {ACT.RELU6: 0.05, ACT.RELU_N1_TO_1: 0.01}.get(activation, 0.1)
    # The accumulators' spread is about 75 * 75 * sqrt(depth); aim it at some 40 output steps.
    typical = 40 * s_out / (75 * 75 * np.sqrt(depth) * s_in)
    w_scales = (typical * rng.uniform(0.5, 1.5, units if per_channel else 1)).astype(np.float32)
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (batches, depth), "int8", quantization=(s_in, zp_in))
    wq = (w_scales, np.zeros(units), 0) if per_channel else (w_scales, [zp_w], 0)
    w = b.add_tensor(
        "w", (units, depth), "int8", data=rng.integers(-127, 128, (units, depth)), quantization=wq
    )
    bias_scales = np.full(units, s_in, np.float32) * np.resize(w_scales, units)
    bias = b.add_tensor(
        "b",
        (units,),
        "int32",
        data=rng.integers(-300, 300, units) * int(np.sqrt(depth)),
        quantization=(bias_scales, np.zeros(units), 0),
    )
    y = b.add_tensor("y", (batches, units), "int8", quantization=(s_out, zp_out))
    options = litert.FullyConnectedOptionsT()
    options.fusedActivationFunction = activation
    b.add_operator("FULLY_CONNECTED", [x, w, bias], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def convert_specs(
    root: Path, prefix: str, platform: dict | None = None, only: tuple[int, ...] = ()
) -> list[Module]:
    """Every spec (or those numbered ``only``) converted with a golden test of LiteRT's reference
    outputs (prefixes ``prefix``0...), for the default platform or ``platform``."""
    out = []
    for i, spec in enumerate(SPECS):
        if only and i not in only:
            continue
        work = root / f"fc{i}"
        work.mkdir()
        config = {
            "model": {"path": str(fc_model(work / "model.tflite", spec, seed=i))},
            "module": {"path": str(work / "module"), "name": "module", "prefix": f"{prefix}{i}"},
            "test": {"enabled": True, "samples": 3, "tolerance": 0.0},
        }
        if platform is not None:
            config["platform"] = platform
        result = AotConverter(ConvertArgs.model_validate(config)).convert()
        out.append(Module(f"{prefix}fc{i}", result.prefix, Path(result.output)))
    return out


@pytest.fixture(scope="module")
def modules(tmp_path_factory) -> list[Module]:
    return convert_specs(tmp_path_factory.mktemp("fc_helium"), "m")


@pytest.fixture(scope="module")
def m4_modules(tmp_path_factory) -> list[Module]:
    """Three specs the Helium loop takes (AD's middle layers; several rows with a clamp; deeper,
    two pointers) and two it does not (a weight zero point; units in fours, not eights),
    converted for an apollo4 platform (Cortex-M4: no Helium)."""
    return convert_specs(
        tmp_path_factory.mktemp("fc_m4"), "q", {"name": "apollo4p_evb"}, only=(0, 2, 6, 7, 8)
    )


def test_the_loop_is_written_exactly_for_the_layers_it_fits(modules):
    for spec, module in zip(SPECS, modules):
        text = "".join(p.read_text() for p in (module.path / "src").glob("*fully_connected*.c"))
        assert ("vqrdmlash.s32" in text) == spec[-1], (spec, module.name)


def _m55(name: str, cpu: str) -> CrossCore:
    base = CORES["m55"]
    return CrossCore(name, (cpu, *base.cpu_flags[1:]), base.machine, base.linker_script, base.description)


# (core, optimization): Helium at -O2 and -O0 (the frame pointer r7 the loop saves itself), the
# M55 without MVE (the kernel call), and the M4.
TARGETS = {
    "m55-mve": (CORES["m55"], "-O2"),
    "m55-mve-O0": (CORES["m55"], "-O0"),
    "m55-nomve": (_m55("m55-nomve", "-mcpu=cortex-m55+nomve"), "-O2"),
    "m4-dsp": (CORES["m4"], "-O2"),
}


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_fc_layers_match_the_reference(modules, target, tmp_path):
    core, opt = TARGETS[target]
    main = write_main(modules, tmp_path / "main.c")
    sources = [main, *(s for m in modules for s in m.sources)]
    elf = cross_build_program(
        sources, tmp_path / "build", core, include_dirs=[d for m in modules for d in m.include_dirs], opt=opt
    )
    run = run_qemu(elf, core, timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    check_verdicts(run.stdout, modules)


def test_modules_converted_for_the_m4_match_the_reference_there(m4_modules, tmp_path):
    # No Helium loop, but the integer multipliers: the DSP kernel call requantizes its packed
    # groups from them, still bit-exact.
    for module in m4_modules:
        text = "".join(p.read_text() for p in (module.path / "src").glob("*fully_connected*.c"))
        assert "__asm__" not in text and "requant_multiplier" in text, module.name
    core = CORES["m4"]
    main = write_main(m4_modules, tmp_path / "main.c")
    sources = [main, *(s for m in m4_modules for s in m.sources)]
    include_dirs = [d for m in m4_modules for d in m.include_dirs]
    elf = cross_build_program(sources, tmp_path / "build", core, include_dirs=include_dirs, opt="-O2")
    run = run_qemu(elf, core, timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    check_verdicts(run.stdout, m4_modules)
