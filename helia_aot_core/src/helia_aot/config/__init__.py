"""The configuration of a conversion: :class:`ConvertArgs` and the sections it is made of.

``ConvertArgs.from_yaml("kws.yaml")`` reads the file the command line reads; ``config_keys()`` lists
every dotted key with its default (the docs table and the ``helia-aot convert`` flags come from it).
"""

from helia_aot.config.args import ConvertArgs, load_config
from helia_aot.config.base import ConfigSection, nearest_key
from helia_aot.config.enums import (
    AccumulationChoice,
    KernelChoice,
    OptimizationGoal,
    ScheduleMode,
    TensorKindSelector,
)
from helia_aot.config.keys import ConfigKey, config_keys
from helia_aot.config.loading import format_validation_errors, invalid_config, read_yaml_mapping
from helia_aot.config.rules import (
    MemoryConfig,
    MemoryConstraint,
    OperatorOptimization,
    OperatorRule,
    TensorAttributes,
    TensorRule,
    TransformConfig,
)
from helia_aot.config.sections import (
    DocumentationConfig,
    ModelConfig,
    ModuleConfig,
    OptimizationConfig,
    PlatformConfig,
    PluginsConfig,
    TestConfig,
)

__all__ = [
    "AccumulationChoice",
    "ConfigKey",
    "ConfigSection",
    "ConvertArgs",
    "DocumentationConfig",
    "KernelChoice",
    "MemoryConfig",
    "MemoryConstraint",
    "ModelConfig",
    "ModuleConfig",
    "OperatorOptimization",
    "OperatorRule",
    "OptimizationConfig",
    "OptimizationGoal",
    "PlatformConfig",
    "PluginsConfig",
    "ScheduleMode",
    "TensorAttributes",
    "TensorKindSelector",
    "TensorRule",
    "TestConfig",
    "TransformConfig",
    "config_keys",
    "format_validation_errors",
    "invalid_config",
    "load_config",
    "nearest_key",
    "read_yaml_mapping",
]
