"""Every configuration rule has a value that breaks it, and that value ends in InvalidConfigError.

The rules are found, not listed: every validator of every configuration section (``field_validator``,
``model_validator``, an ``AfterValidator`` in a field's type) and every numeric bound a field declares
(``ge``, ``le``, ``allow_inf_nan``). Each validator needs a row in ``BREAKS`` (a setting it must
reject, the location the error must name and words of its message) or, for one that only rewrites a
spelling, in ``REWRITES`` (what it must turn the setting into): a validator added without a row
fails ``test_every_validator_has_a_row``, and a row whose validator is gone fails it too. The
bounds, an unknown key in every section, a second spelling of every aliased key and a value of the
wrong type for every field are generated from the models themselves.

Every rejected setting goes through ``load_config`` (what ``helia-aot convert`` builds) and must end
in one InvalidConfigError with exit code 2 whose single problem line names the key; through the
command line (``--path`` to the same settings as YAML) it must exit 2 with that line. The values the
converter checks against the model and the registry (``CONVERTER_BREAKS``) are converted for real.
"""

from __future__ import annotations

import enum
import math
import re
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from annotated_types import Ge, Le
from helia_aot import AotConverter
from helia_aot.cli import app
from helia_aot.config import ConvertArgs, load_config
from helia_aot.config.base import ConfigSection
from helia_aot.config.sections import MAX_ALIGNMENT
from helia_aot.errors import InvalidConfigError
from pydantic import AfterValidator
from pydantic.fields import FieldInfo
from typer.testing import CliRunner

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "fc_64x32_relu_int8.tflite"


# --- the sections and their rules, read from the models -------------------------------------------


def sections() -> dict[type[ConfigSection], str]:
    """Every section ``ConvertArgs`` holds, with where it sits (``memory.constraints[0]``)."""
    found: dict[type[ConfigSection], str] = {ConvertArgs: ""}

    def walk(cls: type[ConfigSection], prefix: str) -> None:
        for name, field in cls.model_fields.items():
            for inner, in_list in _sections_in(field.annotation):
                path = f"{prefix}{name}" + ("[0]" if in_list else "")
                if inner not in found:
                    found[inner] = path
                    walk(inner, path + ".")

    walk(ConvertArgs, "")
    return found


def _sections_in(annotation: Any, in_list: bool = False) -> Iterator[tuple[type[ConfigSection], bool]]:
    if isinstance(annotation, type) and issubclass(annotation, ConfigSection):
        yield annotation, in_list
        return
    origin = typing.get_origin(annotation)
    for arg in typing.get_args(annotation):
        yield from _sections_in(arg, in_list or origin is list)


def validators() -> set[str]:
    """``Section._name`` for each validator a section defines, ``Section.field:function`` for each
    validator a field's type carries. The unknown-key check every section inherits is generated."""
    names = set()
    for cls in sections():
        decorators = cls.__pydantic_decorators__
        for name in [*decorators.field_validators, *decorators.model_validators]:
            if name in vars(cls):
                names.add(f"{cls.__name__}.{name}")
        for field_name, field in cls.model_fields.items():
            for item in field.metadata:
                if isinstance(item, AfterValidator):
                    names.add(f"{cls.__name__}.{field_name}:{item.func.__name__}")
    return names


# --- building a setting ---------------------------------------------------------------------------

LIST_ENTRY = {"constraints": {"name": "sram"}, "transforms": {"name": "*"}}
"""The smallest valid entry of each list whose entries have a required key."""


def setting(path: str, value: Any) -> dict[str, Any]:
    """The configuration mapping that sets only the dotted ``path`` (``memory.tensors[0].id``)."""
    parts = re.findall(r"[^.\[\]]+|\[0\]", path)
    root: dict[str, Any] = {}
    node: Any = root
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "[0]":
            key = parts[index - 1]
            entry = value if last else dict(LIST_ENTRY.get(key, {}))
            node.append(entry)
            node = entry
            continue
        if last:
            node[part] = value
        elif parts[index + 1] == "[0]":
            node = node.setdefault(part, [])
        else:
            node = node.setdefault(part, {})
    return root


@dataclass(frozen=True)
class Break:
    """A setting one rule rejects: where it goes, its value, and words the message must hold."""

    path: str
    value: Any
    words: str
    where: str | None = None  # the location the error names, when not ``path`` itself

    @property
    def named(self) -> str:
        return self.where if self.where is not None else self.path


# --- the table --------------------------------------------------------------------------------------

BREAKS: dict[str, list[Break]] = {
    "SharedArenaConfig._positive": [Break("memory.shared_arena.size", {"dtcm": 0}, "must be positive")],
    "SharedArenaConfig._not_negative": [
        Break("memory.shared_arena.reserved", {"dtcm": -1}, "must not be negative"),
        Break("memory.shared_arena.constants", {"sram": -16}, "must not be negative"),
    ],
    "ModuleConfig._alias": [Break("module.type", "  ", "module.type must not be empty")],
    "ModuleConfig._folder_name": [
        Break("module.name", "../escape", "must be a single folder name"),
        Break("module.name", ".", "must be a single folder name"),
    ],
    "ModuleConfig._c_prefix": [
        Break("module.prefix", "Aot", "is not a lower-case C identifier"),
        Break("module.prefix", "int", "is a C keyword"),
        Break("module.prefix", "a" * 65, "has 65 characters; use at most 64"),
    ],
    "PlatformConfig._name": [Break("platform.name", "  ", "platform name must not be empty")],
    "PlatformConfig._capabilities": [
        Break("platform.capabilities", ["mve", "warp"], "Unknown SoC capability 'warp'. Capabilities are")
    ],
    "PlatformConfig._memories": [
        Break("platform.memories", {"dtcm": 0}, "the dtcm budget must be a positive number of bytes"),
        Break("platform.memories", {"DTCM": 1024, "dtcm": 2048}, "memory dtcm is listed twice"),
        Break("platform.memories", {"dtcm": "lots"}, "the dtcm budget 'lots' is not a byte size"),
        Break("platform.memories", {"ram9": 1024}, "Unknown memory type 'ram9'"),
    ],
    "PlatformConfig._order": [
        Break("platform.preferred_memory_order", ["sram", "ram9"], "Unknown memory type 'ram9'")
    ],
    "PlatformConfig._alignment": [
        Break("platform.min_alignment", 12, "min_alignment 12 is not a power of two. Use 8 or 16 bytes"),
        Break("platform.min_alignment", "3KiB", "not a power of two. Use 2048 or 4096 bytes"),
    ],
    "ModelConfig._input_shapes": [
        Break("model.input_shapes", "frames", "is not name=d0,d1,..."),
        Break("model.input_shapes", "frames=1,x", "has a dimension that is not an integer"),
    ],
    "ModelConfig._positive_dims": [
        Break("model.input_shapes", {"frames": [1, 0]}, "must be at least 1"),
    ],
    "TestConfig._feedback_pairs": [
        Break("test.state_feedback", [[0, -1]], r"pair \(0, -1\) has a negative index"),
        Break("test.state_feedback", [[0, 0], [1, 0]], "an input takes at most one output"),
    ],
    "OptimizationConfig._reserved": [
        Break("optimization.budget", {"latency": 1.0}, "optimization.budget is reserved"),
        Break("optimization.plan", "plan.json", "optimization.plan is reserved"),
    ],
    "MemoryConstraint._memory": [
        Break(
            "memory.constraints[0]",
            {"name": "ram9"},
            "Unknown memory type 'ram9'",
            "memory.constraints[0].name",
        )
    ],
    "MemoryConstraint._bytes": [
        Break("memory.constraints[0].max_size", -1, "max_size must not be negative"),
        Break("memory.constraints[0].max_size", "lots", "max_size 'lots' is not a byte size"),
    ],
    "MemoryConstraint._alignment": [
        Break(
            "memory.constraints[0].arena_alignment",
            24,
            "arena_alignment 24 is not a power of two. Use 16 or 32",
        ),
        Break("memory.constraints[0].arena_alignment", 0, "is not a positive number of bytes"),
        Break("memory.constraints[0].arena_alignment", 2 * MAX_ALIGNMENT, "is larger than 16 MiB"),
    ],
    "TensorAttributes._memory": [
        Break("memory.tensors[0].attributes.memory", "ram9", "Unknown memory type 'ram9'"),
        Break("memory.tensors[0].attributes.constant_destination_memory", "ram9", "Unknown memory type"),
    ],
    "TensorAttributes._alignment": [
        Break(
            "memory.tensors[0].attributes.alignment", 24, "alignment 24 is not a power of two. Use 16 or 32"
        ),
        Break("memory.tensors[0].attributes.alignment", -8, "alignment -8 is not a positive number of bytes"),
        Break("memory.tensors[0].attributes.alignment", 2 * MAX_ALIGNMENT, "is larger than 16 MiB"),
        Break("memory.tensors[0].attributes.alignment", True, "alignment must be a byte count, not True"),
    ],
    "TensorRule._id": [Break("memory.tensors[0].id", [], "an id list must name at least one id")],
    "TensorRule._constant_only": [
        Break(
            "memory.tensors[0]",
            {"type": "scratch", "attributes": {"constant_destination_memory": "sram"}},
            "constant_destination_memory applies to constant tensors, not scratch ones",
        )
    ],
    "MemoryConfig._one_cap_per_memory": [
        Break("memory.constraints", [], "must list at least one memory"),
        Break("memory.constraints", [{"name": "sram"}, {"name": "SRAM"}], "memory sram is constrained twice"),
    ],
    "MemoryConfig.planner:_extension_name": [Break("memory.planner", "   ", "the name must not be empty")],
    "OperatorRule._id": [Break("operators[0].id", [], "an id list must name at least one id")],
    "OperatorRule._canonical_type": [Break("operators[0].type", " ", "operator type must not be empty")],
}
"""Validator -> settings it must reject (each alone), the key the error names and words it says."""

REWRITES: dict[str, list[tuple[dict[str, Any], str, Any]]] = {
    "SharedArenaConfig._memory_names": [
        ({"memory": {"shared_arena": {"size": {"DTCM": 5}}}}, "memory.shared_arena.size", {"dtcm": 5})
    ],
    "ConvertArgs._model_bytes": [({"model": memoryview(b"TFL3")}, "model.data", b"TFL3")],
    "ConvertArgs._platform_name": [({"platform": "apollo4p_evb"}, "platform.name", "apollo4p_evb")],
    "ModelConfig._data": [({"model": {"data": memoryview(b"TFL3")}}, "model.data", b"TFL3")],
    "ModelConfig._input_shapes": [
        ({"model": {"input_shapes": "a=1,10;b=1,4"}}, "model.input_shapes", {"a": [1, 10], "b": [1, 4]})
    ],
    "ModuleConfig._alias": [({"module": {"type": " NeuralSpot "}}, "module.type", "nsx")],
    "MemoryConfig._planner_case": [({"memory": {"planner": " GREEDY "}}, "memory.planner", "greedy")],
    "TensorRule._id": [({"memory": {"tensors": [{"id": [3, "4"]}]}}, "memory.tensors.0.id", ["3", "4"])],
    "OperatorRule._id": [({"operators": [{"id": 7}]}, "operators.0.id", "7")],
    "OperatorRule._canonical_type": [({"operators": [{"type": "conv_2d"}]}, "operators.0.type", "CONV_2D")],
    "PlatformConfig._capabilities": [
        ({"platform": {"capabilities": ["MVE"]}}, "platform.capabilities", ["mve"])
    ],
    "PlatformConfig._memories": [
        ({"platform": {"memories": {"DTCM": "4KiB"}}}, "platform.memories", {"dtcm": 4096})
    ],
    "PlatformConfig._order": [
        ({"platform": {"preferred_memory_order": ["SRAM"]}}, "platform.preferred_memory_order", ["sram"])
    ],
    "MemoryConstraint._memory": [
        ({"memory": {"constraints": [{"name": "SRAM"}]}}, "memory.constraints.0.name", "sram")
    ],
    "MemoryConstraint._bytes": [
        (
            {"memory": {"constraints": [{"name": "sram", "max_size": "1KiB"}]}},
            "memory.constraints.0.max_size",
            1024,
        )
    ],
    "TensorAttributes._memory": [
        (
            {"memory": {"tensors": [{"attributes": {"memory": "DTCM"}}]}},
            "memory.tensors.0.attributes.memory",
            "dtcm",
        )
    ],
}
"""Validator -> (setting, dotted attribute of the built configuration, the value it must hold).

Validators that only rewrite a spelling have nothing to reject; the rewrite is their rule."""


def bound_breaks() -> list[Break]:
    """A value past every numeric bound a field declares (``ge``, ``le``, ``allow_inf_nan``)."""
    found = []
    for cls, prefix in sections().items():
        for name, field in cls.model_fields.items():
            path = f"{prefix}.{name}" if prefix else name
            for item in field.metadata:
                if isinstance(item, Ge):
                    below = item.ge - (0.5 if isinstance(item.ge, float) else 1)
                    found.append(Break(*_placed(path, below), "greater than or equal", path))
                if isinstance(item, Le):
                    found.append(Break(*_placed(path, item.le + 1), "less than or equal", path))
                if getattr(item, "allow_inf_nan", True) is False:
                    found.append(Break(*_placed(path, math.inf), "finite number", path))
    return found


def _required(path: str) -> dict[str, Any]:
    """The keys a list entry at ``path`` needs to be valid (none for a section or a free entry)."""
    for key, entry in LIST_ENTRY.items():
        if path.endswith(f"{key}[0]"):
            return dict(entry)
    return {}


def _placed(path: str, value: Any) -> tuple[str, Any]:
    """Where to set ``value`` for ``path``: an entry with a required key is set whole, with it."""
    head, _, leaf = path.rpartition(".")
    required = _required(head)
    return (head, {**required, leaf: value}) if required else (path, value)


def unknown_key_breaks() -> list[Break]:
    """In every section: an unknown key, a misspelling of its first key, each removed key (which must
    name its replacement) and each key given with both of its spellings."""
    found = []
    for cls, prefix in sections().items():
        first = next(iter(cls.model_fields))
        typo = first[1] + first[0] + first[2:] if len(first) > 2 else first + "x"
        for key, words in (("colour", "unknown key 'colour'"), (typo, f"did you mean '{first}'")):
            path = f"{prefix}.{key}" if prefix else key
            found.append(Break(*_placed(path, 1), words, path))
        for key, replacement in cls.REMOVED_KEYS.items():
            path = f"{prefix}.{key}" if prefix else key
            found.append(Break(path, True, f"{re.escape(path)} was removed: {re.escape(replacement)}"))
        for alias, canonical in cls.KEY_ALIASES.items():
            both = {**_required(prefix), alias: None, canonical: None}
            found.append(Break(prefix, both, "are the same key given twice"))
    return found


WRONG_TYPE = {"not": "a value of this key"}
"""A mapping: the wrong type for every key that does not take a mapping."""


def wrong_type_breaks() -> list[Break]:
    """For every key of every section, a value of the wrong type (a mapping, or a list for a mapping)."""
    found = []
    for cls, prefix in sections().items():
        for name, field in cls.model_fields.items():
            if name == "path" and cls is ConvertArgs:
                continue  # the file the configuration came from, set by --path itself
            path = f"{prefix}.{name}" if prefix else name
            wrong = [1, 2] if _takes_mapping(field) else WRONG_TYPE
            found.append(Break(*_placed(path, wrong), "", path))  # pydantic's own words
    return found


def _takes_mapping(field: FieldInfo) -> bool:
    def mapping(annotation: Any) -> bool:
        if typing.get_origin(annotation) is dict or annotation is dict:
            return True
        if isinstance(annotation, type) and issubclass(annotation, ConfigSection):
            return True
        if typing.get_origin(annotation) in (typing.Union, types.UnionType):
            return any(mapping(arg) for arg in typing.get_args(annotation))
        return False

    return mapping(field.annotation)


def all_breaks() -> list[Break]:
    rows = [row for rule in sorted(BREAKS) for row in BREAKS[rule]]
    return rows + bound_breaks() + unknown_key_breaks() + wrong_type_breaks()


def rejected(brk: Break) -> InvalidConfigError:
    mapping = setting(brk.path, brk.value)
    with pytest.raises(InvalidConfigError) as info:
        load_config(None, mapping)
    return info.value


# --- the tests --------------------------------------------------------------------------------------


def test_every_validator_has_a_row():
    """A validator added without a setting that breaks it (or a rewrite it must make) fails here, and
    so does a row left behind by a validator that is gone."""
    found = validators()
    covered = set(BREAKS) | set(REWRITES)
    assert found - covered == set(), (
        f"validators without a row in BREAKS or REWRITES: {sorted(found - covered)}"
    )
    assert covered - found == set(), f"rows for validators that no longer exist: {sorted(covered - found)}"


BOUNDS = {
    ("model.subgraph", "greater than or equal"),
    ("test.tolerance", "greater than or equal"),
    ("test.tolerance", "finite number"),
    ("test.tolerance_ulp", "greater than or equal"),
    ("test.num_iterations", "greater than or equal"),
    ("test.num_iterations", "less than or equal"),
    ("test.samples", "greater than or equal"),
    ("verbose", "greater than or equal"),
    ("verbose", "less than or equal"),
}
"""The bounds the models declare, written out: the generated rows come from the models, so without
this list a bound deleted by mistake would take its row with it."""


def test_the_generated_rows_reach_every_section_and_bound():
    names = {cls.__name__ for cls in sections()}
    assert {
        "ConvertArgs",
        "MemoryConstraint",
        "TensorAttributes",
        "OperatorOptimization",
        "TransformConfig",
    } <= names
    assert {(row.named, row.words) for row in bound_breaks()} == BOUNDS


def test_the_generated_rows_include_the_removed_keys():
    assert {row.path for row in unknown_key_breaks()} >= {
        "memory.auto_hydrate_constants",
        "memory.persistent_storage",
        "memory.constant_residency",
    }


@pytest.mark.parametrize("brk", all_breaks(), ids=lambda b: f"{b.named}={b.value!r}"[:90])
def test_a_setting_that_breaks_a_rule_is_one_invalid_config_error(brk):
    error = rejected(brk)
    assert error.exit_code == 2 and error.hint
    problems = error.details
    if brk.words:  # one problem, in the rule's words
        assert len(problems) == 1, problems
        where, _, message = problems[0].partition(": ")
        assert where == brk.named and re.search(brk.words, message), (brk.words, problems)
    else:  # a wrong type: pydantic names each type the key takes (id: a string or a list of them)
        assert problems and all(p.startswith(brk.named) for p in problems), problems


@pytest.mark.parametrize(
    ("rule", "case"),
    [(rule, case) for rule in sorted(REWRITES) for case in REWRITES[rule]],
    ids=lambda x: x if isinstance(x, str) else x[1],
)
def test_a_rewriting_rule_rewrites(rule, case):
    mapping, attribute, expected = case
    value: Any = ConvertArgs.model_validate(mapping)
    for part in attribute.split("."):
        value = value[int(part)] if part.isdigit() else getattr(value, part)
    value = value.value if isinstance(value, enum.Enum) else value
    assert value == expected and type(value) is type(expected), (rule, value)


runner = CliRunner()


@pytest.mark.parametrize(
    "brk", [row for rule in sorted(BREAKS) for row in BREAKS[rule]], ids=lambda b: b.named
)
def test_the_command_line_exits_2_naming_the_key(brk, tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(setting(brk.path, brk.value)))
    result = runner.invoke(
        app, ["convert", "--path", str(config), "--model.path", str(tmp_path / "absent.tflite")]
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    line = next(line for line in result.stderr.splitlines() if line.strip().startswith(f"- {brk.named}: "))
    assert re.search(brk.words, line), (brk.words, line)


# --- what the converter checks, against the model and the registry -----------------------------------

CONVERTER_BREAKS: list[tuple[dict[str, Any], str]] = [
    (
        {"memory": {"planner": "simulated_annealing"}},
        "memory.planner 'simulated_annealing' is not registered",
    ),
    ({"memory": {"planner_options": {"iterashuns": 10}}}, "has no option 'iterashuns'"),
    ({"memory": {"planner_options": {"iterations": -1}}}, "'iterations' must be a non-negative integer"),
    ({"memory": {"tensors": [{"id": "999"}]}}, r"memory.tensors\[0\] names tensor id '999'"),
    (
        {"memory": {"tensors": [{"type": "constant", "id": "0"}]}},
        r"memory.tensors\[0\] is for constant tensors",
    ),
    (
        {"memory": {"tensors": [{"type": "scratch", "attributes": {"memory": "mram"}}]}},
        "mram, which is read-only",
    ),
    (
        {
            "memory": {
                "tensors": [{"type": "constant", "attributes": {"constant_destination_memory": "mram"}}]
            }
        },
        "constant_destination_memory: mram, which is read-only",
    ),
    (
        {"memory": {"tensors": [{"attributes": {"memory": "dram"}}]}},
        "dram, but platform 'apollo510_evb' does not",
    ),
    (
        {"memory": {"constraints": [{"name": "sram"}], "tensors": [{"attributes": {"memory": "dtcm"}}]}},
        "dtcm, but memory.constraints does not list it",
    ),
    ({"memory": {"constraints": [{"name": "mram"}]}}, "lists no read-write memory"),
    ({"memory": {"constraints": [{"name": "dram"}]}}, r"memory.constraints\[0\] caps DRAM, which platform"),
    (
        {"memory": {"constraints": [{"name": "sram", "max_size": "1GiB"}]}},
        "max_size 1073741824 for sram is outside",
    ),
    ({"operators": [{"type": "FULLY_CONNECTED", "attributes": {"code_placment": "ITCM"}}]}, "did you mean"),
    ({"operators": [{"type": "FULLY_CONNECTED", "attributes": {"code_placement": "ROM"}}]}, "is not a value"),
    (
        {"transforms": [{"name": "FOLD_EVERYTHING"}]},
        "transforms\\[\\].name 'FOLD_EVERYTHING' is not registered",
    ),
    ({"transforms": [{"name": "*", "enabled": False}, {"name": "*"}]}, "is listed twice"),
    ({"transforms": [{"name": "*", "options": {"x": 1}}]}, "options are not accepted on the '\\*' transform"),
    ({"test": {"enabled": True, "state_feedback": [[3, 0]]}}, "names a tensor the model does not have"),
]
"""Settings the configuration accepts and the conversion rejects, once it knows the model and the
registry: each must fail as InvalidConfigError (exit code 2) before anything is written."""


@pytest.mark.parametrize(
    ("mapping", "words"), CONVERTER_BREAKS, ids=lambda x: x if isinstance(x, str) else ""
)
def test_the_converter_rejects_what_only_the_model_can_tell(mapping, words, tmp_path):
    config = load_config(None, {**mapping, "model.path": str(MODEL), "module.path": str(tmp_path / "out")})
    with pytest.raises(InvalidConfigError, match=words) as info:
        AotConverter(config).convert()
    assert info.value.exit_code == 2 and info.value.hint
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("rules", "assign", "key"),
    [
        (
            {"memory.tensors": [{"attributes": {"alignment": 16}}]},
            "tensors",
            "memory.tensors[0].attributes.alignment",
        ),
        (
            {"memory.constraints": [{"name": "sram", "arena_alignment": 16}]},
            "constraints",
            "memory.constraints[0].arena_alignment",
        ),
    ],
)
def test_an_alignment_assigned_after_validation_is_still_a_config_error(rules, assign, key, tmp_path):
    """Validation runs on construction only; the converter checks the alignments it reads again, so
    24 assigned later is the same InvalidConfigError, not a ValueError from the memory planner."""
    config = load_config(None, {**rules, "model.path": str(MODEL), "module.path": str(tmp_path / "out")})
    if assign == "tensors":
        config.memory.tensors[0].attributes.alignment = 24
    else:
        config.memory.constraints[0].arena_alignment = 24
    with pytest.raises(InvalidConfigError) as info:
        AotConverter(config).convert()
    assert str(info.value).startswith(f"{key} 24 is not a power of two") and "16 or 32" in str(info.value)
    assert info.value.exit_code == 2
