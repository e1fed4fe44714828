"""The simple configuration sections: model, module, platform, test, optimization, docs, plugins.

Field descriptions are the text ``docs/configuration.md`` and ``helia-aot convert --help`` show, so
they say what a value does for the user rather than how the compiler stores it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import Field, field_validator

from helia_aot.config.base import Choices, ConfigSection, reraise_as_value_error
from helia_aot.config.enums import (
    MODULE_TYPE_ALIASES,
    AccumulationChoice,
    KernelChoice,
    OptimizationGoal,
    ScheduleMode,
)
from helia_aot.platforms.model import MemoryType, SocCapability, parse_capability, parse_memory_type
from helia_aot.platforms.sizes import parse_byte_size

_C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if inline "
    "int long register restrict return short signed sizeof static struct switch typedef union "
    "unsigned void volatile while _Bool _Complex _Imaginary".split()
)
_PREFIX_RE = re.compile(r"^[a-z][a-z0-9_]*$")


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


MemoryName = Annotated[str, Choices(_memory_names)]
"""A memory word (``dtcm``, ``sram``, ...); validators normalise it with :func:`canonical_memory`."""


class ModelConfig(ConfigSection):
    """The model to convert (``model``)."""

    SECTION: ClassVar[str] = "model"

    path: Path = Field(description="The LiteRT (.tflite) model file to convert.")
    name: str | None = Field(
        None, description="Name used in generated comments and docs; defaults to the file's stem."
    )
    subgraph: int = Field(0, ge=0, description="Index of the model subgraph to convert.")


class ModuleConfig(ConfigSection):
    """The generated C module (``module``)."""

    SECTION: ClassVar[str] = "module"

    path: Path = Field(
        Path("./out"),
        description="Folder the module folder is written into, or a .zip/.pack archive to write instead.",
    )
    name: str | None = Field(None, description="Name of the module folder; defaults to the model name.")
    type: str = Field(
        "cmake",
        description="Build-system layout registered in module_exporters: cmake, zephyr, nsx "
        "(alias neuralspot), cmsis_pack or one a plugin adds.",
    )
    prefix: str = Field(
        "aot", description="Lower-case C identifier every generated symbol and file name starts with."
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
            return MODULE_TYPE_ALIASES.get(word.lower(), word)
        return value

    @field_validator("name")
    @classmethod
    def _folder_name(cls, value: str | None) -> str | None:
        if value is None:
            return None
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
        return value


class PlatformConfig(ConfigSection):
    """The target (``platform``): a registered platform, adjusted by any other field given.

    With a name no plugin registers, ``cpu`` and ``memories`` describe a custom board; the fields
    are checked here one by one and assembled by :func:`helia_aot.platforms.resolve_platform`.
    """

    SECTION: ClassVar[str] = "platform"

    name: str = Field("apollo510_evb", description="Registered platform, or the name of a custom one.")
    description: str | None = Field(None, description="Custom platform: a one-line description for reports.")
    cpu: str | None = Field(None, description="Custom platform: the core, e.g. cortex-m55.")
    capabilities: list[Annotated[str, Choices(_capability_names)]] | None = Field(
        None, description="Custom platform: instruction-set features (default: from the CPU)."
    )
    memories: dict[MemoryName, int] | None = Field(
        None, description="Memory budgets in bytes (or 384KiB, 3MiB); merges with a registered platform's."
    )
    preferred_order: list[MemoryName] | None = Field(
        None, description="Memories read-write data fills, fastest first."
    )
    alignment: int | None = Field(None, description="Minimum arena alignment in bytes (a power of two).")

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

    @field_validator("preferred_order", mode="before")
    @classmethod
    def _order(cls, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [canonical_memory(item) for item in value]
        return value

    @field_validator("alignment", mode="before")
    @classmethod
    def _alignment(cls, value: Any) -> Any:
        if value is None:
            return None
        size = byte_count(value, "alignment")
        if size <= 0 or size & (size - 1):
            raise ValueError(f"alignment {value!r} is not a positive power of two")
        return size

    @property
    def is_custom(self) -> bool:
        """Whether any field besides ``name`` is given (a custom board, or an adjusted one)."""
        return any(getattr(self, key) is not None for key in type(self).model_fields if key != "name")


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
        0.0,
        ge=0.0,
        description="Largest difference the test accepts: absolute for integer outputs; for float "
        "outputs relative to the expected value (absolute below 1).",
    )
    tolerance_ulp: int | None = Field(
        None,
        ge=0,
        description="Float outputs: largest distance in units in the last place (float32 steps "
        "between the two values), element by element; when set it replaces tolerance for them.",
    )
    samples: int | None = Field(
        None, ge=1, description="How many golden samples the test runs (default: all)."
    )
    num_iterations: int = Field(
        1,
        ge=1,
        le=2147483647,
        description="How many times the self-test runs each sample (state_feedback copies between runs).",
    )
    state_feedback: list[tuple[int, int]] = Field(
        default_factory=list,
        description="(output_index, input_index) pairs: after each self-test run the output is copied "
        "into the input, which gets the stimulus only on the first iteration.",
    )


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
    disabled: list[str] = Field(default_factory=list, description="Never load these plugins.")


__all__ = [
    "DocumentationConfig",
    "MemoryName",
    "ModelConfig",
    "ModuleConfig",
    "OptimizationConfig",
    "PlatformConfig",
    "PluginsConfig",
    "TestConfig",
    "byte_count",
    "canonical_memory",
]
