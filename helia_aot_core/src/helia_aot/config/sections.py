"""The simple configuration sections: model, module, platform, test, optimization, docs, plugins.

Field descriptions are the text ``docs/configuration.md`` and ``helia-aot convert --help`` show, so
they say what a value does for the user rather than how the compiler stores it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import Field, field_validator

from helia_aot.config.base import Choices, ConfigSection, empty_list, reraise_as_value_error
from helia_aot.config.enums import (
    MODULE_TYPE_ALIASES,
    AccumulationChoice,
    KernelChoice,
    ModelType,
    OptimizationGoal,
    ScheduleMode,
)
from helia_aot.errors import InvalidConfigError
from helia_aot.platforms.model import MemoryType, SocCapability, parse_capability, parse_memory_type
from helia_aot.platforms.sizes import parse_byte_size

_C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if inline "
    "int long register restrict return short signed sizeof static struct switch typedef union "
    "unsigned void volatile while _Bool _Complex _Imaginary".split()
)
_PREFIX_RE = re.compile(r"^[a-z][a-z0-9_]*$")
MAX_PREFIX_LENGTH = 64
"""The longest ``module.prefix``: far under the file system's 255-byte names, which every generated
file name (the prefix and up to about 40 more characters) must fit."""


def _memory_names() -> list[str]:
    return [m.value for m in MemoryType]


def _capability_names() -> list[str]:
    return [c.value for c in SocCapability]


def canonical_memory(value: Any) -> str:
    """The memory a value names, as its lower-case ``MemoryType`` word (``"DTCM"`` -> ``"dtcm"``)."""
    return reraise_as_value_error(parse_memory_type, value).value


def byte_count(value: Any, what: str) -> int:
    """A byte count given as an int or as text such as ``"384KiB"``."""
    return reraise_as_value_error(lambda v: parse_byte_size(v, what=what), value)


MAX_ALIGNMENT = 1 << 24
"""The largest alignment a configuration may ask for: 16 MiB, more than any memory of a supported
target holds (a larger one could only pad every placement past the end of its memory)."""


def check_alignment(value: Any, key: str) -> int:
    """An alignment in bytes (an int, or text such as ``"1KiB"``): a power of two up to 16 MiB.

    Raises InvalidConfigError naming ``key`` (where the value was written) and the powers of two
    next to it. The configuration's validators call it, and so does the converter for the values
    it reads (an attribute assigned after validation is not validated again).
    """
    size = parse_byte_size(value, what=key)
    if 0 < size <= MAX_ALIGNMENT and size & (size - 1) == 0:
        return size
    if size > MAX_ALIGNMENT:
        raise InvalidConfigError(
            f"{key} {value!r} is larger than 16 MiB, more than any target memory holds.",
            hint=f"Give a power of two from 1 to {MAX_ALIGNMENT} bytes, such as 16 or 32.",
        )
    if size <= 0:
        raise InvalidConfigError(
            f"{key} {value!r} is not a positive number of bytes.",
            hint="Give a power of two such as 4, 8 or 16 (1 for no alignment).",
        )
    below = 1 << (size.bit_length() - 1)
    raise InvalidConfigError(
        f"{key} {value!r} is not a power of two.", hint=f"Use {below} or {below * 2} bytes instead."
    )


MemoryName = Annotated[str, Choices(_memory_names)]
"""A memory word (``dtcm``, ``sram``, ...); validators normalise it with :func:`canonical_memory`."""


class ModelConfig(ConfigSection):
    """The model to convert (``model``)."""

    SECTION: ClassVar[str] = "model"

    path: Path = Field(
        Path("model.tflite"),
        description="The model file to convert: LiteRT (.tflite), or ONNX with its front end.",
    )
    subgraph: int = Field(0, ge=0, description="Index of the model subgraph to convert.")
    type: ModelType | None = Field(
        None, description="The file's format, tflite or litert; without it the file extension decides."
    )
    format: str | None = Field(
        None,
        description="The model loader (front end) that reads the file: litert, onnx or another "
        "installed loader's format (helia-aot plugins lists them); without it the file's first bytes decide.",
    )
    name: str = Field("model", description="Name used in generated comments, docs and the results.")
    description: str | None = Field(
        None, description="A description of the model for the module's docs (default: the file's own)."
    )
    version: str | None = Field(
        None, description="The model's version for the module's docs (default: the file's schema version)."
    )
    input_shapes: dict[str, list[int]] = Field(
        default_factory=dict,
        description="Static shapes for inputs whose signature has unknown (-1) dimensions, by input "
        "name: {name: [1, 49, 10]}, or on the command line name=1,49,10 (several separated by ';'). "
        "The shapes are propagated through the graph as LiteRT does after resize_tensor_input.",
    )
    data: bytes | None = Field(
        None,
        exclude=True,
        repr=False,
        description="Python API: the model's bytes (what the TensorFlow converter returns), converted "
        "instead of reading model.path; model.path then only names the model in the records.",
    )

    @field_validator("input_shapes", mode="before")
    @classmethod
    def _input_shapes(cls, value: Any) -> Any:
        # The command line's spelling: "name=1,1280" (";" between inputs), or a list of them.
        if isinstance(value, str):
            value = [part for part in value.split(";") if part.strip()]
        if isinstance(value, list):
            shapes: dict[str, list[int]] = {}
            for entry in value:
                name, sep, dims = str(entry).rpartition("=")
                if not sep or not name.strip():
                    raise ValueError(f"input shape {entry!r} is not name=d0,d1,...")
                try:
                    shapes[name.strip()] = [int(d) for d in dims.split(",")]
                except ValueError:
                    raise ValueError(
                        f"input shape {entry!r} has a dimension that is not an integer"
                    ) from None
            return shapes
        return value

    @field_validator("input_shapes")
    @classmethod
    def _positive_dims(cls, value: dict[str, list[int]]) -> dict[str, list[int]]:
        for name, dims in value.items():
            if any(d < 1 for d in dims):
                raise ValueError(
                    f"input {name!r}: every dimension of a fixed shape must be at least 1, not {dims}"
                )
        return value

    @field_validator("data", mode="before")
    @classmethod
    def _data(cls, value: Any) -> Any:
        # A notebook holds the model as bytes, a bytearray or a memoryview of a buffer.
        if isinstance(value, (bytearray, memoryview)):
            return bytes(value)
        return value


class ModuleConfig(ConfigSection):
    """The generated C module (``module``)."""

    SECTION: ClassVar[str] = "module"

    path: Path = Field(
        Path("output.zip"),
        description="Folder the module folder is written into, or a .zip/.pack archive to write instead.",
    )
    name: str = Field("helia_aot_nn", description="Name of the module: its folder and build target.")
    type: str = Field(
        "cmake",
        description="Build-system layout registered in module_exporters: cmake, zephyr, nsx "
        "(alias neuralspot), cmsis_pack or one a plugin adds.",
    )
    prefix: str = Field(
        "aot",
        description="Lower-case C identifier (at most 64 characters) every generated symbol and file "
        "name starts with. Give each module of one firmware image its own prefix: two modules "
        "sharing one would define the same symbols, so their CMake and Zephyr builds stop at "
        "configure naming the prefix.",
    )
    schedule: ScheduleMode = Field(
        ScheduleMode.TABLE,
        description="table: a dispatch loop with a per-operator callback; static: straight-line calls.",
    )

    @field_validator("type", mode="before")
    @classmethod
    def _alias(cls, value: Any) -> Any:
        # The name is checked against the conversion's module_exporters; here it only loses the
        # spelling differences a hand-written file has, and an old name becomes the current one.
        if isinstance(value, str):
            word = value.strip()
            if not word:
                raise ValueError("module.type must not be empty")
            # Any case is accepted (`CMAKE`); registered module types are lower-case words.
            return MODULE_TYPE_ALIASES.get(word.lower(), word.lower())
        return value

    @field_validator("name")
    @classmethod
    def _folder_name(cls, value: str) -> str:
        # The name becomes a folder, a CMake target and part of comments: letters, digits, '_',
        # '.' and '-' only, so no model or configuration text can inject code or paths.
        if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", value) or value in (".", ".."):
            raise ValueError(
                f"module name {value!r} must be a single folder name of letters, digits, "
                "'_', '.' and '-' (not starting with '.' or '-')"
            )
        return value

    @field_validator("prefix")
    @classmethod
    def _c_prefix(cls, value: str) -> str:
        if not _PREFIX_RE.match(value):
            raise ValueError(
                f"prefix {value!r} is not a lower-case C identifier (a letter, then letters, digits or '_')"
            )
        if value in _C_KEYWORDS:
            raise ValueError(f"prefix {value!r} is a C keyword")
        if len(value) > MAX_PREFIX_LENGTH:
            # Every generated file name starts with it: a long one fails deep in the export with
            # the file system's "File name too long".
            raise ValueError(
                f"prefix {value[:20]!r}... has {len(value)} characters; use at most {MAX_PREFIX_LENGTH}"
            )
        return value


class PlatformConfig(ConfigSection):
    """The target (``platform``): a registered platform, adjusted by any other field given.

    With a name no plugin registers, ``cpu`` and ``memories`` describe a custom board; the fields
    are checked here one by one and assembled by :func:`helia_aot.platforms.resolve_platform`.
    """

    SECTION: ClassVar[str] = "platform"
    KEY_ALIASES: ClassVar[dict[str, str]] = {
        "preferred_order": "preferred_memory_order",
        "alignment": "min_alignment",
    }

    name: str = Field("apollo510_evb", description="Registered platform, or the name of a custom one.")
    cpu: str | None = Field(None, description="Custom platform: the core, e.g. cortex-m55.")
    # Any integer list is accepted; the warning comes when the platform is resolved (logging is set
    # up by then), since no conversion reads the value.
    speeds: list[int] = Field(
        default_factory=empty_list,
        description="Deprecated and unused (clock choices come from the platform); "
        "a warning asks to remove it.",
    )
    memories: dict[MemoryName, int] = Field(
        default_factory=dict,
        description="Memory budgets in bytes (or 384KiB, 3MiB); merges with a registered platform's.",
    )
    capabilities: list[Annotated[str, Choices(_capability_names)]] = Field(
        default_factory=empty_list,
        description="Custom platform: instruction-set features (default: from the CPU).",
    )
    preferred_memory_order: list[MemoryName] = Field(
        default_factory=empty_list,
        description="Custom platform: memories read-write data fills, fastest first.",
    )
    min_alignment: int | None = Field(
        None,
        description="Custom platform: minimum arena alignment in bytes (a power of two, at most 16 MiB).",
    )
    description: str | None = Field(None, description="Custom platform: a one-line description for reports.")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("platform name must not be empty")
        return value.strip()

    @field_validator("capabilities", mode="before")
    @classmethod
    def _capabilities(cls, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [reraise_as_value_error(parse_capability, item).value for item in value]
        return value

    @field_validator("memories", mode="before")
    @classmethod
    def _memories(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        budgets: dict[str, int] = {}
        for key, size in value.items():
            memory = canonical_memory(key)
            if memory in budgets:
                raise ValueError(f"memory {memory} is listed twice")
            budgets[memory] = byte_count(size, f"the {memory} budget")
            if budgets[memory] <= 0:
                raise ValueError(f"the {memory} budget must be a positive number of bytes")
        return budgets

    @field_validator("preferred_memory_order", mode="before")
    @classmethod
    def _order(cls, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [canonical_memory(item) for item in value]
        return value

    @field_validator("min_alignment", mode="before")
    @classmethod
    def _alignment(cls, value: Any) -> Any:
        return None if value is None else reraise_as_value_error(check_alignment, value, "min_alignment")

    @property
    def is_custom(self) -> bool:
        """Whether any field besides ``name`` is given (a custom board, or an adjusted one)."""
        return any(
            getattr(self, key) not in (None, [], {}) for key in type(self).model_fields if key != "name"
        )


class TestConfig(ConfigSection):
    """The self-test the module can be generated with (``test``)."""

    __test__: ClassVar[bool] = False  # a configuration model, not a pytest test class
    SECTION: ClassVar[str] = "test"

    enabled: bool = Field(False, description="Generate a test that runs the module on golden data.")
    golden_data: Path | None = Field(
        None,
        description="An .npz of inputs and expected outputs (default: made by the reference interpreter).",
    )
    tolerance: float = Field(
        1.0,
        ge=0.0,
        allow_inf_nan=False,
        description="Largest difference the test accepts: quantization steps on quantized integer "
        "outputs; on float outputs this times the output's largest expected magnitude. Bool and "
        "index outputs are compared exactly.",
    )
    tolerance_ulp: int | None = Field(
        None,
        ge=0,
        description="Float outputs: largest distance in units in the last place (float32 steps "
        "between the two values), element by element; when set it replaces tolerance for them.",
    )
    skip_verification: bool = Field(
        False, description="Run the model in the test but do not compare its outputs."
    )
    num_iterations: int = Field(
        1,
        ge=1,
        le=2147483647,
        description="How many times the test runs the same stimulus through the model.",
    )
    state_feedback: list[tuple[int, int]] = Field(
        default_factory=empty_list,
        description="(output_index, input_index) pairs: that output is copied into that input between "
        "iterations (a recurrent state); the input gets the stimulus only on the first iteration.",
    )
    samples: int | None = Field(
        None, ge=1, description="How many golden samples the test runs (default: all)."
    )

    @field_validator("state_feedback")
    @classmethod
    def _feedback_pairs(cls, value: list[tuple[int, int]]) -> list[tuple[int, int]]:
        fed: dict[int, int] = {}
        for output, input_ in value:
            if output < 0 or input_ < 0:
                raise ValueError(f"state_feedback pair ({output}, {input_}) has a negative index")
            if input_ in fed:
                raise ValueError(
                    f"state_feedback feeds input {input_} from outputs {fed[input_]} and {output}; "
                    "an input takes at most one output"
                )
            fed[input_] = output
        return value


class OptimizationConfig(ConfigSection):
    """What the optimizer aims for (``optimization``)."""

    SECTION: ClassVar[str] = "optimization"

    goal: OptimizationGoal = Field(
        OptimizationGoal.BALANCED,
        description="balanced, latency, size or accuracy: how auto choices are made.",
    )
    allow_approximate: bool = Field(
        False, description="Allow choices whose results may differ from the reference."
    )
    kernel: KernelChoice = Field(
        KernelChoice.AUTO, description="auto, specialized or generic kernels for every operator."
    )
    accumulation: AccumulationChoice = Field(
        AccumulationChoice.AUTO, description="auto, precise or fast accumulation for every operator."
    )
    budget: dict[str, float] | None = Field(
        None, description="Reserved for a later version; must stay unset."
    )
    plan: Path | None = Field(None, description="Reserved for a later version; must stay unset.")

    @field_validator("budget", "plan")
    @classmethod
    def _reserved(cls, value: Any, info: Any) -> Any:
        if value is not None:
            raise ValueError(
                f"optimization.{info.field_name} is reserved for a later version and cannot be set "
                "yet; remove it"
            )
        return value


class DocumentationConfig(ConfigSection):
    """Documentation written into the module (``documentation``)."""

    SECTION: ClassVar[str] = "documentation"

    html: bool = Field(False, description="Write an HTML page describing the module.")
    readme: bool = Field(True, description="Write a README.md describing the module.")


class PluginsConfig(ConfigSection):
    """Which installed plugins a conversion loads (``plugins``)."""

    SECTION: ClassVar[str] = "plugins"

    enabled: list[str] | None = Field(
        None, description="Load only these plugins (default: every installed one)."
    )
    disabled: list[str] = Field(default_factory=empty_list, description="Never load these plugins.")


__all__ = [
    "DocumentationConfig",
    "MemoryName",
    "ModelConfig",
    "ModuleConfig",
    "OptimizationConfig",
    "PlatformConfig",
    "PluginsConfig",
    "TestConfig",
    "MAX_ALIGNMENT",
    "byte_count",
    "canonical_memory",
    "check_alignment",
]
