"""The LSTM kernels on the cores: int8 layers bit-exact and a float32 layer within the absolute
bound the host build meets, under QEMU on the Cortex-M55 (Helium build) and the Cortex-M4 (DSP build).

The corpus's fused Keras LSTMs (their golden samples rerun by one interpreter, so the state
carries from sample to sample as on the device) and a builder-made int8 layer with every integer
variant at once (peephole, layer normalization, projection with bias and clip, two batch rows,
time-major) are linked into one program per core.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import CORES, corpus_golden_to_npz, cross_build_program, run_qemu
from ops_builtin.support.lstm_models import LstmSpec, lstm_model

from .corpus import HOST_FLOAT_TOLERANCE, golden_path, manifest, model_path
from .hostile_inputs import add_hostile_samples
from .linked import Module, check_verdicts, write_main
from .stateful_reference import streaming_golden

pytestmark = [pytest.mark.cross]

CORPUS = ("lstm_fused_seq_tf_keras_int8", "lstm_fused_seq_tf_keras_float32")
BUILT = LstmSpec(
    dtype="int8",
    batch=2,
    time=5,
    n_cell=8,
    n_output=5,
    peephole=True,
    layer_norm=True,
    projection_bias=True,
    proj_clip=0.4,
    cell_clip=1.0,
    time_major=True,
    hidden_zero_point=4,
)


def _convert(model: Path, work: Path, prefix: str, test: dict) -> Module:
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(model)},
            "module": {"path": str(work / "module"), "name": "module", "prefix": prefix},
            "test": {"enabled": True, "tolerance": 0.0, **test},
        }
    )
    result = AotConverter(config).convert()
    return Module(work.name, result.prefix, Path(result.output))


def _modules(core: str, root: Path) -> list[Module]:
    entries = {e["name"]: e for e in manifest()}
    modules = []
    for i, name in enumerate(CORPUS):
        entry, work = entries[name], root / name
        work.mkdir(parents=True)
        golden = corpus_golden_to_npz(golden_path(entry), work / "golden.npz")
        add_hostile_samples(entry, model_path(entry), golden)
        streaming_golden(entry, model_path(entry), golden)
        integer = entry["dtype"] == "int8"
        # Integer outputs exact; the float LSTM within the absolute bound the host build meets
        # (HOST_FLOAT_TOLERANCE: its reference's matrix products round differently).
        test = {"golden_data": str(golden), "tolerance": 0.0 if integer else HOST_FLOAT_TOLERANCE[name]}
        modules.append(_convert(model_path(entry), work, f"m{i}", test))
    work = root / BUILT.label
    work.mkdir()
    model = lstm_model(BUILT, work / "model.tflite")
    modules.append(_convert(model, work, "mb", {"samples": 4}))
    return modules


@pytest.mark.parametrize("core", sorted(CORES))
def test_lstm_layers_pass_on_the_core(core, tmp_path):
    modules = _modules(core, tmp_path / "modules")
    main = write_main(modules, tmp_path / "main.c")
    sources = [main, *(s for m in modules for s in m.sources)]
    elf = cross_build_program(
        sources, tmp_path, CORES[core], include_dirs=[d for m in modules for d in m.include_dirs]
    )
    run = run_qemu(elf, CORES[core], timeout=300, count=False)
    assert run.returncode == 0, run.stdout
    check_verdicts(run.stdout, modules)
