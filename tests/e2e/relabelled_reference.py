"""Reference-kernel expected outputs for a corpus model the reference op resolver will not load.

LiteRT's reference resolver (BUILTIN_REF) registers fewer operator versions than its optimized one.
``small_unet_upsample_concat_int8`` declares TILE version 3 (the version LiteRT's converter gives an
int8 TILE), which only the optimized resolver registers, so its golden data were recorded with the
optimized kernels (the manifest's ``reference_op_resolver`` says so). Those kernels are not the
contract: the optimized LOGISTIC rounds differently and is 1 LSB off the reference kernels on a
few values, where our module matches the reference.

The version number only selects a registration: both resolvers run the same TILE kernel, and
TILE's versions 1 to 3 differ only in the input types they admit (v2 strings, v3 int8), which the
kernel checks itself. So the expected outputs for such a model come from the reference kernels run
on a copy whose operator code says version 2 (:func:`relabel_operator_version`, a four-byte edit of
the flatbuffer, nothing else changes). Before the substitution is used, :func:`reference_golden`
checks that the reference outputs stay within ``MAX_LSB_FROM_RECORDING`` of the optimized recording
on every recorded sample, so a relabelled model that computed something else would fail loudly.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import numpy as np
from ai_edge_litert.interpreter import OpResolverType
from helia_aot.litert import schema_py_generated as litert

RELABELLED_FOR_REFERENCE = {"small_unet_upsample_concat_int8": ("TILE", 3, 2)}
"""Model -> (operator, version it declares, version the reference resolver registers)."""

MAX_LSB_FROM_RECORDING = 1
"""How far the reference kernels may be from the optimized recording (the LOGISTIC rounding)."""

_VERSION_SLOT = 8
"""OperatorCode's vtable slot of ``version`` (field 2: 4 + 2 * 2), per schema.fbs."""


def relabel_operator_version(content: bytes, operator: str, old: int, new: int) -> bytes:
    """``content`` with every ``operator`` code of version ``old`` rewritten to say ``new``.

    A byte-level edit of the stored int32, so buffers, offsets and every other byte stay as they
    were (repacking would rewrite the file). Fails unless at least one code was rewritten.
    """
    code = getattr(litert.BuiltinOperator, operator)
    data = bytearray(content)
    model = litert.Model.GetRootAs(data, 0)
    changed = 0
    for i in range(model.OperatorCodesLength()):
        opcode = model.OperatorCodes(i)
        if max(opcode.BuiltinCode(), opcode.DeprecatedBuiltinCode()) != code:
            continue
        if opcode.Version() != old:
            continue
        slot = opcode._tab.Offset(_VERSION_SLOT)  # non-zero: version is stored, it is not the default
        position = opcode._tab.Pos + slot
        assert struct.unpack_from("<i", data, position)[0] == old
        struct.pack_into("<i", data, position, new)
        changed += 1
    if not changed:
        raise ValueError(f"the model has no {operator} operator code of version {old}")
    return bytes(data)


def reference_model(entry: dict[str, Any], model: Path, workdir: Path) -> tuple[Path, OpResolverType]:
    """The model file and kernels that give ``entry``'s expected outputs, and the kernels to use.

    For a model in RELABELLED_FOR_REFERENCE: its relabelled copy in ``workdir`` and BUILTIN_REF.
    Otherwise ``model`` itself and the kernels the manifest recorded it with.
    """
    from .hostile_inputs import reference_kernels

    if entry["name"] not in RELABELLED_FOR_REFERENCE:
        return model, reference_kernels(entry)
    operator, old, new = RELABELLED_FOR_REFERENCE[entry["name"]]
    copy = workdir / f"{entry['name']}.{operator.lower()}_v{new}.tflite"
    copy.write_bytes(relabel_operator_version(model.read_bytes(), operator, old, new))
    return copy, OpResolverType.BUILTIN_REF


def reference_golden(entry: dict[str, Any], model: Path, golden: Path) -> Path:
    """Replace a relabelled model's recorded outputs in ``golden`` with the reference kernels'.

    ``golden`` is a test.golden_data archive; it is rewritten in place (untouched for any model not
    in RELABELLED_FOR_REFERENCE) and returned. Each reference output must be within
    MAX_LSB_FROM_RECORDING of the recording, so the substitution is checked, not blind.
    """
    if entry["name"] not in RELABELLED_FOR_REFERENCE:
        return golden
    from .hostile_inputs import run_reference

    relabelled, kernels = reference_model(entry, model, golden.parent)
    with np.load(golden) as data:
        arrays = {key: data[key] for key in data.files}
    inputs = [arrays[f"input_{i}"] for i in range(len(entry["inputs"]))]
    for sample in range(inputs[0].shape[0]):
        outputs = run_reference(relabelled, kernels, [x[sample] for x in inputs])
        for j, value in enumerate(outputs):
            recorded = arrays[f"output_{j}"][sample]
            value = value.reshape(recorded.shape).astype(recorded.dtype)
            gap = np.abs(value.astype(np.int64) - recorded.astype(np.int64)).max()
            assert gap <= MAX_LSB_FROM_RECORDING, (
                f"{entry['name']} sample {sample} output {j}: the reference kernels are {gap} LSB "
                f"from the optimized recording (at most {MAX_LSB_FROM_RECORDING} expected)"
            )
            arrays[f"output_{j}"][sample] = value
    np.savez(golden, **arrays)
    return golden
