"""EXAMPLE_GAIN_CLIP: a saturating int8 gain-and-clip with typed options and a required attribute.

The model carries the clip range and the shift as FlexBuffers custom options, because they belong
to the network; the gain is a required operator attribute, because it is tuned per deployment
(``operators: [{type: EXAMPLE_GAIN_CLIP, attributes: {gain: 300}}]``). The arithmetic is
:func:`helia_aot_example_ops.reference.gain_clip`; the C kernel in ``kernels/`` follows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from flatbuffers import flexbuffers
from helia_aot.air import AirModel, AirOperator, AirOperatorOptions, custom_code_to_op_key
from helia_aot.aot.operators import OperatorAttributes
from helia_aot.errors import UnsupportedModelError
from helia_aot.pack import (
    KernelLibrary,
    OperatorRecord,
    TemplateOperator,
    custom_options_of,
    input_ids_of,
    litert,
    operator_at,
    output_ids_of,
    register_operators,
)
from helia_aot.registry import RegistryContext
from pydantic import Field
from pydantic.dataclasses import dataclass as pydantic_dataclass

from helia_aot_example_ops.reference import GAIN_MAX, GAIN_MIN, INT8_MAX, INT8_MIN, SHIFT_MAX

CUSTOM_CODE = "example-gain-clip"
KEY = custom_code_to_op_key(CUSTOM_CODE)
PACKAGE_DIR = Path(__file__).resolve().parent
TEMPLATE_DIR = PACKAGE_DIR / "templates"
KERNEL_DIR = PACKAGE_DIR / "kernels"
KERNEL_FAMILY = "hk_exops_gain_clip"
"""The kernel's file stem in ``kernels/``; its family name in the library drops the ``hk_``."""


@dataclass(slots=True)
class AirGainClipOptions(AirOperatorOptions):
    """The node's decoded custom options: the right shift and the clip range, in output units."""

    shift: int
    clip_min: int = INT8_MIN
    clip_max: int = INT8_MAX


def encode_options(shift: int, clip_min: int = INT8_MIN, clip_max: int = INT8_MAX) -> bytes:
    """The FlexBuffers map a model stores as the node's custom options (for model builders)."""
    return bytes(
        flexbuffers.Dumps({"shift": int(shift), "clip_min": int(clip_min), "clip_max": int(clip_max)})
    )


def _read_map(raw: bytes) -> dict[str, Any]:
    """The map's entries as Python values; anything but a well-formed map is an error."""
    try:
        root = flexbuffers.GetRoot(bytearray(raw))
        if not root.IsMap:
            raise UnsupportedModelError(f"{KEY} custom options must be a FlexBuffers map")
        entries = root.AsMap
        return {name: entries[name] for name in entries.Keys.Value}
    except UnsupportedModelError:
        raise
    except Exception as exc:  # the bytes come from the model file: any decoding failure is its fault
        raise UnsupportedModelError(f"{KEY} custom options are not valid FlexBuffers: {exc}") from exc


def decode_options(raw: bytes) -> AirGainClipOptions:
    """Decode and check the FlexBuffers map ``{shift, clip_min?, clip_max?}``."""
    if not raw:
        raise UnsupportedModelError(f"{KEY} carries no custom options; it needs at least 'shift'")
    entries = _read_map(raw)
    unknown = sorted(set(entries) - {"shift", "clip_min", "clip_max"})
    if unknown:
        raise UnsupportedModelError(f"{KEY} custom options have unknown keys {unknown}")
    if "shift" not in entries:
        raise UnsupportedModelError(f"{KEY} custom options have no 'shift'")
    values = {}
    for name, value in entries.items():
        if not value.IsInt:
            raise UnsupportedModelError(f"{KEY} option {name!r} must be an integer")
        values[name] = int(value.AsInt)
    options = AirGainClipOptions(**values)
    if not 0 <= options.shift <= SHIFT_MAX:
        raise UnsupportedModelError(f"{KEY} shift {options.shift} is outside 0..{SHIFT_MAX}")
    if not INT8_MIN <= options.clip_min <= options.clip_max <= INT8_MAX:
        raise UnsupportedModelError(
            f"{KEY} clip range {options.clip_min}..{options.clip_max} is not "
            f"an ordered range inside {INT8_MIN}..{INT8_MAX}"
        )
    return options


def parse_gain_clip(
    op_id: int, model: litert.ModelT, subgraph: litert.SubGraphT, air_model: AirModel
) -> AirOperator:
    """Parse one ``example-gain-clip`` node, decoding its custom options."""
    del air_model
    op = operator_at(subgraph, op_id)
    return AirOperator(
        id=str(op_id),
        op_type=KEY,
        input_ids=input_ids_of(op),
        output_ids=output_ids_of(op),
        named_tensors={},
        options=decode_options(custom_options_of(op, model)),
    )


@pydantic_dataclass(kw_only=True)
class GainClipAttributes(OperatorAttributes):
    """``gain`` (required): the signed integer multiplier applied before the shift."""

    gain: Annotated[int, Field(ge=GAIN_MIN, le=GAIN_MAX)]


class GainClipOperator(TemplateOperator):
    """Emit one EXAMPLE_GAIN_CLIP node as a call of the pack's ``exops_gain_clip_s8`` kernel.

    The core's TemplateOperator writes the header and the frame of the source (includes, the
    kernel header) and copies the kernel files; this class supplies the body template, the
    numbers it needs and the checks.
    """

    TYPE = KEY
    TEMPLATE = "exops_gain_clip.c.mako"
    TEMPLATE_DIRS = (TEMPLATE_DIR,)
    KERNEL_LIBRARY = KernelLibrary(KERNEL_DIR)
    KERNELS = (KERNEL_FAMILY.removeprefix("hk_"),)
    SUPPORTED_DTYPES = (np.int8,)
    RESTRICTIONS = (
        "exactly one int8 input and one int8 output of the same shape",
        "input and output quantization, when present, is per tensor",
        "the gain attribute must be set by an operators[] rule",
    )
    ATTRIBUTES = GainClipAttributes
    INPLACE_INPUTS = (0,)  # the kernel reads each element before writing it

    def check(self) -> Iterable[str]:
        if len(self.input_tensors) != 1 or len(self.output_tensors) != 1:
            yield (
                f"takes one input and one output, not {len(self.input_tensors)} and "
                f"{len(self.output_tensors)}"
            )
            return
        source, result = self.input_tensors[0], self.output_tensors[0]
        if source.is_constant:
            yield "the input must not be a constant"
        if tuple(source.shape) != tuple(result.shape):
            yield f"input shape {list(source.shape)} differs from output shape {list(result.shape)}"
        for role, tensor in (("input", source), ("output", result)):
            if tensor.quantization is not None and np.size(tensor.quantization.zero_point) > 1:
                yield f"the {role} is quantized per channel"

    def on_resolve(self) -> None:
        self.typed_options(AirGainClipOptions)  # a mis-registered parser fails here, not in C

    def comment(self) -> str:
        return f"{KEY} operator {self.id} (helia-aot-example-ops)"

    def kernel_calls(self) -> dict[str, str]:
        return {"run": f"{self.prefix}_{KERNEL_FAMILY}_s8"}

    def macs(self) -> int:
        return self.output_tensors[0].size

    def parameters(self) -> int:
        return 0

    def compute_values(self) -> dict[str, Any]:
        options = self.typed_options(AirGainClipOptions)
        source, result = self.input_tensors[0], self.output_tensors[0]
        return {
            "input_offset": -self.tensor_zero_point(source),
            "output_offset": self.tensor_zero_point(result),
            "gain": self.attributes.gain,
            "shift": options.shift,
            "clip_min": options.clip_min,
            "clip_max": options.clip_max,
            "size": result.size,
            "input_enum": self.tensor_enum(source),
            "output_enum": self.tensor_enum(result),
        }


OPERATORS = [OperatorRecord(KEY, parse_gain_clip, AirGainClipOptions, GainClipOperator)]
"""What the pack registers for EXAMPLE_GAIN_CLIP: the parser, the options class, the operator class."""


def customize_registry(context: RegistryContext) -> None:
    """Register the parser, the options class and the operator class under one key."""
    register_operators(context, OPERATORS)
