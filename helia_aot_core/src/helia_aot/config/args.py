"""ConvertArgs: the whole configuration of one conversion, as the YAML file and the CLI spell it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, ValidationError, field_validator

from helia_aot.config.base import ConfigSection, empty_list
from helia_aot.config.loading import apply_overrides, invalid_config, read_yaml_mapping
from helia_aot.config.rules import MemoryConfig, OperatorRule, TransformConfig
from helia_aot.config.sections import (
    DocumentationConfig,
    ModelConfig,
    ModuleConfig,
    OptimizationConfig,
    PlatformConfig,
    PluginsConfig,
    TestConfig,
)


class ConvertArgs(ConfigSection):
    """Every setting of one conversion, validated on construction.

    Build it from a YAML file with :meth:`from_yaml` or from a mapping with ``model_validate``. An
    unknown key anywhere fails validation with the nearest valid key. Every key has a default (the
    same ones the product this tool replaces uses), so ``ConvertArgs()`` is a valid configuration
    that converts ``model.tflite`` in the working directory into ``output.zip``.
    """

    SECTION: ClassVar[str] = ""

    model: ModelConfig = Field(default_factory=ModelConfig, description="The model to convert.")
    module: ModuleConfig = Field(default_factory=ModuleConfig, description="The generated C module.")
    platform: PlatformConfig = Field(default_factory=PlatformConfig, description="The target platform.")
    memory: MemoryConfig = Field(default_factory=MemoryConfig, description="Arena planning and placement.")
    operators: list[OperatorRule] = Field(
        default_factory=empty_list,
        description="Operator rules: a list of {type, id, attributes, optimization}.",
    )
    transforms: list[TransformConfig] = Field(
        default_factory=empty_list,
        description="Graph transforms to run or disable: a list of {name, enabled, options}.",
    )
    test: TestConfig = Field(default_factory=TestConfig, description="The generated self-test.")
    optimization: OptimizationConfig = Field(
        default_factory=OptimizationConfig, description="Optimization goal."
    )
    documentation: DocumentationConfig = Field(
        default_factory=DocumentationConfig, description="Documentation written into the module."
    )
    plugins: PluginsConfig = Field(default_factory=PluginsConfig, description="Plugin selection.")
    verbose: int = Field(
        1, ge=0, le=3, description="0 quiet, 1 progress, 2 details, 3 debug with tracebacks."
    )
    force: bool = Field(False, description="Replace an existing module at the output path.")
    keep_work_dir: bool = Field(False, description="Keep the temporary work directory and report it.")
    dry_run: bool = Field(
        False,
        description="Run Load to Plan and report the plan, arenas and records without writing the module.",
    )
    result_views: bool = Field(
        False, description="Describe the generated operators, tensors and regions in the ConversionResult."
    )
    log_file: Path | None = Field(None, description="Also write the run's log to this file.")
    path: Path | None = Field(
        None,
        exclude=True,
        description="The YAML file the configuration was loaded from (--path loads it).",
    )

    @field_validator("model", mode="before")
    @classmethod
    def _model_bytes(cls, value: Any) -> Any:
        # `ConvertArgs(model=tflite_bytes)`: what the TensorFlow converter returns, without a file.
        return {"data": value} if isinstance(value, (bytes, bytearray, memoryview)) else value

    @field_validator("platform", mode="before")
    @classmethod
    def _platform_name(cls, value: Any) -> Any:
        # `platform: apollo510_evb` is the common case; a bare name stands for {name: ...}.
        return {"name": value} if isinstance(value, str) else value

    @property
    def module_name(self) -> str:
        """``module.name``: the module's folder and build target."""
        return self.module.name

    @classmethod
    def from_yaml(cls, path: str | Path, *, overrides: Mapping[str, Any] | None = None) -> ConvertArgs:
        """Load a YAML configuration file, with dotted-key ``overrides`` laid over it.

        Relative paths in the file (``model.path``, ``module.path``, ``test.golden_data``,
        ``log_file``) resolve from the working directory of the process, as the product resolves
        them, not from the file's folder: run the conversion from the folder the paths are written
        for. ``path`` is set to the file. Raises InvalidConfigError (exit code 2) listing every
        problem, with pydantic's ValidationError as its ``__cause__`` when validation failed.
        """
        path = Path(path)
        data = apply_overrides(read_yaml_mapping(path), {**(overrides or {}), "path": path})
        try:
            return cls.model_validate(data)
        except ValidationError as error:
            raise invalid_config(error, str(path)) from error


def load_config(path: str | Path | None = None, overrides: Mapping[str, Any] | None = None) -> ConvertArgs:
    """The configuration a YAML file (optional) and dotted-key overrides describe together.

    This is what ``helia-aot convert`` builds; every failure is an InvalidConfigError.
    """
    if path is not None:
        return ConvertArgs.from_yaml(path, overrides=overrides)
    try:
        return ConvertArgs.model_validate(apply_overrides({}, overrides or {}))
    except ValidationError as error:
        raise invalid_config(error) from error


__all__ = ["ConvertArgs", "load_config"]
