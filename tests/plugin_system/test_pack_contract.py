"""helia_aot.testing's contract check: a deliberately broken pack fails each rule, a good one passes."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from typing import Annotated

import pytest
from helia_aot.aot.operators import OperatorAttributes
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import check_pack_contract
from helia_aot.testing.contract import attribute_problems
from pydantic import Field
from pydantic.dataclasses import dataclass as pydantic_dataclass

COMMON = """
from pathlib import Path

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from helia_aot.air import AirOperator, AirOperatorOptions
from helia_aot.aot.operators import AotOperator, OperatorAttributes
from helia_aot.converters.litert.schema_access import input_ids_of, operator_at, output_ids_of
from helia_aot.plugins import hookimpl


def parser_for(op_type):
    def parse(op_id, model, subgraph, air_model):
        op = operator_at(subgraph, op_id)
        return AirOperator(id=str(op_id), op_type=op_type, input_ids=input_ids_of(op),
                           output_ids=output_ids_of(op), named_tensors={},
                           options=AirOperatorOptions())
    return parse


class Copy(AotOperator):
    HEADER = ('#include "{p}_common.h"\\n#ifdef __cplusplus\\nextern "C" {{\\n#endif\\n'
              'int32_t {s}_run({p}_model_context_t *ctx);\\n#ifdef __cplusplus\\n}}\\n#endif\\n')

    @property
    def has_init(self):
        return False

    def emit(self, save_path):
        s, p = f"{self.prefix}_{self.name}", self.prefix
        src, dst = self.input_tensors[0], self.output_tensors[0]
        (save_path / "includes-api" / f"{s}.h").write_text(self.HEADER.format(s=s, p=p))
        (save_path / "src" / f"{s}.c").write_text(
            f'#include "{s}.h"\\nint32_t {s}_run({p}_model_context_t *ctx)\\n{{\\n'
            f"    memmove(ctx->tensor_ptrs[{p}_{dst.name}], ctx->tensor_ptrs[{p}_{src.name}], "
            f"{dst.nbytes});\\n    return 0;\\n}}\\n")
"""

GOOD = (
    COMMON
    + """

class GoodCopy(Copy):
    TYPE = "GOOD_COPY"


@dataclass(config=ConfigDict(extra="allow"))
class FreeForm(OperatorAttributes):
    pass


class FreeCopy(Copy):
    TYPE = "FREE_COPY"
    ATTRIBUTES = FreeForm


@hookimpl
def helia_aot_register(context):
    for key, cls in (("GOOD_COPY", GoodCopy), ("FREE_COPY", FreeCopy)):
        context.litert_parsers.register(key, parser_for(key))
        context.aot_operator_classes.register(key, cls)
"""
)

BROKEN = (
    COMMON
    + """

class WrongKey(Copy):
    TYPE = "WRONG_KEY"


class PlainAttributes(OperatorAttributes):
    gain: int = 1


class BadClass(AotOperator):
    TYPE = "NOT_MY_KEY"
    ATTRIBUTES = PlainAttributes


class BadHeader(Copy):
    TYPE = "BAD_HEADER"
    HEADER = ('#ifdef __cplusplus\\nextern "C" {{\\n#endif\\n#include "{p}_common.h"\\n'
              'int32_t {s}_run({p}_model_context_t *ctx);\\n#ifdef __cplusplus\\n}}\\n#endif\\n')

    @property
    def has_init(self):
        return True

    def kernel_sources(self):
        return [Path(__file__).parent / "plain_kernel.c"]


class NotOptions:
    pass


@hookimpl
def helia_aot_register(context):
    context.litert_parsers.register("WRONG_KEY", parser_for("SOMETHING_ELSE"))
    context.aot_operator_classes.register("WRONG_KEY", WrongKey)
    context.litert_parsers.register("LONELY_PARSER", parser_for("LONELY_PARSER"))
    context.air_options.register("ORPHAN_OPTIONS", NotOptions)
    context.litert_parsers.register("BAD_CLASS", parser_for("BAD_CLASS"))
    context.aot_operator_classes.register("BAD_CLASS", BadClass)
    context.litert_parsers.register("my.op", parser_for("my.op"))
    context.aot_operator_classes.register("my.op", WrongKey)
    context.litert_parsers.register("BAD_HEADER", parser_for("BAD_HEADER"))
    context.aot_operator_classes.register("BAD_HEADER", BadHeader)
"""
)

OVERRIDES = (
    COMMON
    + """

@hookimpl
def helia_aot_register(context):
    context.aot_operator_classes.register("RELU", Copy, overwrite=True)
"""
)


def load_pack(folder, name, source, monkeypatch):
    folder.mkdir()
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)  # template discovery finds files through it
    spec.loader.exec_module(module)
    return module


def copy_model(path, custom_code):
    builder = LiteRTModelBuilder()
    x = builder.add_tensor("x", (8,), "int8")
    y = builder.add_tensor("y", (8,), "int8")
    builder.add_custom_operator(custom_code, [x], [y])
    builder.set_inputs([x])
    builder.set_outputs([y])
    return builder.save(path)


def test_a_good_pack_keeps_the_contract(tmp_path, monkeypatch):
    pack = load_pack(tmp_path / "good", "contract_good_pack", GOOD, monkeypatch)
    samples = [
        copy_model(tmp_path / "good.tflite", "good-copy"),
        {
            "model": {"path": str(copy_model(tmp_path / "free.tflite", "free-copy"))},
            "operators": [{"type": "FREE_COPY", "attributes": {"anything": 1}}],
        },
    ]
    report = check_pack_contract(pack, samples=samples, work_dir=tmp_path)
    report.assert_ok()
    assert report.operator_keys == ["FREE_COPY", "GOOD_COPY"]


def test_a_broken_pack_fails_every_rule_it_breaks(tmp_path, monkeypatch):
    pack = load_pack(tmp_path / "broken", "contract_broken_pack", BROKEN, monkeypatch)
    (tmp_path / "broken" / "plain_kernel.c").write_text("int plain_kernel_unused;\n")
    (tmp_path / "broken" / "op.c.mako").write_text("% if x:\nunterminated\n")
    samples = [
        copy_model(tmp_path / "wrong.tflite", "wrong-key"),
        copy_model(tmp_path / "header.tflite", "bad-header"),
    ]
    report = check_pack_contract(pack, samples=samples, work_dir=tmp_path)
    assert not report.ok
    text = "\n".join(report.problems)
    expected = [
        "WRONG_KEY: the parser wrote op_type 'SOMETHING_ELSE'; it must write its own key",
        "wrong.tflite: conversion failed",
        "LONELY_PARSER: a parser is registered but no operator class",
        "ORPHAN_OPTIONS: an options class is registered but no parser",
        "ORPHAN_OPTIONS: the options class",
        "BAD_CLASS: BadClass.TYPE is 'NOT_MY_KEY', not its registry key",
        "BAD_CLASS: BadClass does not implement emit()",
        "BAD_CLASS: ATTRIBUTES PlainAttributes declares ['gain'] without @pydantic.dataclasses.dataclass",
        "my.op: WrongKey.TYPE is 'WRONG_KEY', not its registry key",
        "my.op: not a canonical key",
        "template op.c.mako does not compile",
        'has an #include inside its extern "C" guard',
        "must declare int32_t aot_bad_header_0_init(aot_model_context_t *ctx)",
        "kernel file plain_kernel.c is not named hk_*",
        "header.tflite: module",
    ]
    for sentence in expected:
        assert sentence in text, f"missing {sentence!r} in:\n{text}"
    with pytest.raises(AssertionError, match="breaks the operator-pack contract"):
        report.assert_ok()


def test_a_pack_may_not_replace_a_builtin(tmp_path, monkeypatch):
    pack = load_pack(tmp_path / "overrides", "contract_override_pack", OVERRIDES, monkeypatch)
    report = check_pack_contract(pack)
    assert report.problems and report.problems[0].startswith("registration failed: ")
    assert "tried to replace the built-in 'RELU'" in report.problems[0]


@pydantic_dataclass(kw_only=True)
class Required(OperatorAttributes):
    gain: Annotated[int, Field(ge=0)]


@pydantic_dataclass
class BadDefault(OperatorAttributes):
    level: Annotated[int, Field(ge=0)] = -1


def test_attribute_defaults_are_validated():
    assert attribute_problems(Required) == []
    assert attribute_problems(dict) == ["ATTRIBUTES <class 'dict'> does not derive from OperatorAttributes"]
    assert "default of level" in " ".join(attribute_problems(BadDefault))
