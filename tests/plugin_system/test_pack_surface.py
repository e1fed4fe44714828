"""helia_aot.pack: the record, register_operators, TemplateOperator and KernelLibrary.

The built-in operators and plugins-example register and emit through these, so their end-to-end
tests (tests/hardening/test_determinism.py, tests/e2e, plugins-example/tests) cover the happy path
on real models; this file pins each piece's own rules on small, made-up operators.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest
from helia_aot.air import AirModel, AirOperator, AirOperatorOptions, AirTensor, AirTensorType
from helia_aot.aot.operators import AotOperator
from helia_aot.errors import PluginError
from helia_aot.pack import (
    KernelLibrary,
    OperatorRecord,
    TemplateOperator,
    recorded_operators,
    register_operators,
)
from helia_aot.registry import RegistryContext, build_default_registry_context
from helia_aot.testing import check_pack_contract
from helia_aot.testing.contract import record_problems
from helia_aot_ops_builtin.plugin import registrations

from helia_aot_ops_builtin import families


def parse(op_id, model, subgraph, air_model):
    raise AssertionError("never called here")


@dataclass(slots=True)
class ScaleOptions(AirOperatorOptions):
    factor: int


class Scale(TemplateOperator):
    TYPE = "ACME_SCALE"
    TEMPLATE = "scale.c.mako"


class Hand(AotOperator):
    TYPE = "ACME_HAND"

    def emit(self, save_path):
        raise AssertionError("never called here")


def test_a_record_registers_parser_options_and_class_in_order():
    context = RegistryContext()
    records = [
        OperatorRecord("ACME_SCALE", parse, ScaleOptions, Scale, litert_keys=("ACME_SCALE", "ACME_SCALE_V2")),
        OperatorRecord("ACME_HAND", parse, None, Hand),
    ]
    with context.provided_by("acme"), recorded_operators() as seen:
        register_operators(context, records)
    assert seen == records
    assert list(context.litert_parsers.keys()) == ["ACME_SCALE", "ACME_SCALE_V2", "ACME_HAND"]
    assert list(context.air_options.keys()) == ["ACME_SCALE"]
    assert list(context.aot_operator_classes.keys()) == ["ACME_SCALE", "ACME_HAND"]
    assert context.registered_by("acme")["aot_operator_classes"] == ["ACME_SCALE", "ACME_HAND"]
    assert records[1].litert_keys == ("ACME_HAND",)
    # Outside the block nothing is recorded, and registering works the same.
    other = RegistryContext()
    register_operators(other, records[1:])
    assert list(other.aot_operator_classes.keys()) == ["ACME_HAND"]


class NoTemplate(TemplateOperator):
    TYPE = "ACME_BARE"


class Orphan(TemplateOperator):
    TYPE = "ACME_ORPHAN"
    TEMPLATE = "orphan.c.mako"
    KERNELS = ("orphan",)


class Silent(AotOperator):
    TYPE = "ACME_SILENT"


class NotOptions:
    pass


@pytest.mark.parametrize(
    "record, problem",
    [
        (OperatorRecord("acme-scale", parse, None, Scale), "'acme-scale' is not a canonical key"),
        (
            OperatorRecord("ACME_OTHER", parse, None, Scale),
            "Scale.TYPE is 'ACME_SCALE', not the record's key",
        ),
        (OperatorRecord("ACME_SCALE", "parse", None, Scale), "the parser 'parse' is not callable"),
        (OperatorRecord("ACME_SCALE", parse, NotOptions, Scale), "does not derive from AirOperatorOptions"),
        (OperatorRecord("ACME_SCALE", parse, None, dict), "does not derive from AotOperator"),
        (
            OperatorRecord("ACME_BARE", parse, None, NoTemplate),
            "sets no TEMPLATE and does not override emit()",
        ),
        (
            OperatorRecord("ACME_ORPHAN", parse, None, Orphan),
            "declares KERNELS ['orphan'] but no KERNEL_LIBRARY",
        ),
        (OperatorRecord("ACME_SILENT", parse, None, Silent), "Silent does not implement emit()"),
        (OperatorRecord("ACME_SCALE", parse, None, Scale, litert_keys=("",)), "LiteRT key '' is not"),
    ],
)
def test_an_inconsistent_record_is_rejected_before_anything_registers(record, problem):
    assert any(problem in p for p in record.problems()), record.problems()
    context = RegistryContext()
    with context.provided_by("acme_ops"), pytest.raises(PluginError) as caught:
        register_operators(context, [record])
    assert caught.value.message.startswith("acme_ops registers an inconsistent operator record: ")
    assert problem in caught.value.message
    assert "must be one and the same name" in caught.value.hint
    assert not any(r.keys() for r in context.registries())


def test_register_operators_takes_records_only():
    with pytest.raises(PluginError, match="takes OperatorRecord values, not tuple"):
        register_operators(RegistryContext(), [("ACME_SCALE", parse, None, Scale)])


def test_every_builtin_record_keeps_the_record_rules():
    records = registrations()
    assert len({r.key for r in records}) == len(records) > 40
    problems = [p for record in records for p in record_problems(record)]
    assert problems == []
    files = {path.name for record in records for path in record.kernel_files}
    assert {"hk_pool.h", "hk_pool.c", "hk_common.h"} <= files


def library(tmp_path):
    folder = tmp_path / "kernels"
    folder.mkdir()
    (folder / "hk_base.h").write_text("#define HK_BASE 1\n")
    (folder / "hk_mid.h").write_text('#include "hk_base.h"\n')
    (folder / "hk_mid.c").write_text('#include "hk_mid.h"\n')
    (folder / "hk_top.h").write_text('#include "hk_mid.h"\n#include "hk_base.h"\n#include <stdint.h>\n')
    (folder / "hk_top.c").write_text('#include "hk_top.h"\n')
    return KernelLibrary(folder)


def test_a_kernel_library_follows_includes_dependencies_first(tmp_path):
    kernels = library(tmp_path)
    assert kernels.families() == ["base", "mid", "top"]
    names = [p.name for p in kernels.sources("top", "mid")]
    assert names == ["hk_base.h", "hk_mid.h", "hk_mid.c", "hk_top.h", "hk_top.c"]
    with pytest.raises(KeyError, match="no kernel family 'nope'; known families: base, mid, top"):
        kernels.sources("nope")


def test_a_kernel_library_searches_its_folders_in_order(tmp_path):
    """Families spread over a search path: an include finds its family in another folder, a
    family's sources come from the folder of its header, and the first folder holding a header
    wins."""
    common, conv, shadow = (tmp_path / name for name in ("common", "conv", "shadow"))
    for folder in (common, conv, shadow):
        folder.mkdir()
    (common / "hk_base.h").write_text("#define HK_BASE 1\n")
    (conv / "hk_conv.h").write_text('#include "hk_base.h"\n')
    (conv / "hk_conv.c").write_text('#include "hk_conv.h"\n')
    (conv / "hk_conv_mve.c").write_text('#include "hk_conv.h"\n')
    (shadow / "hk_conv.h").write_text("/* never found: conv comes first */\n")
    (shadow / "hk_conv.c").write_text("/* never copied */\n")
    kernels = KernelLibrary(common, conv, shadow)
    assert kernels.search_path == (common, conv, shadow)
    assert kernels.families() == ["base", "conv"]
    assert kernels.family_folder("conv") == conv
    assert kernels.sources("conv") == [
        common / "hk_base.h",
        conv / "hk_conv.h",
        conv / "hk_conv.c",
        conv / "hk_conv_mve.c",
    ]
    assert KernelLibrary(common, conv, shadow) == kernels != KernelLibrary(conv, common, shadow)
    with pytest.raises(ValueError, match="at least one folder"):
        KernelLibrary()


def model_with_one_operator(op_type, options):
    model = AirModel()
    for tid, name in (("0", "x"), ("1", "y")):
        model.add_tensor(AirTensor(id=tid, name=name, shape=(4,), dtype=AirTensorType.INT8))
    op = AirOperator(
        id="3", op_type=op_type, input_ids=["0"], output_ids=["1"], named_tensors={}, options=options
    )
    return model, op


def test_a_template_operator_emits_the_core_frame_and_copies_its_kernels(tmp_path):
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "scale.c.mako").write_text(
        textwrap.dedent(
            """\
            <%inherit file="_operator.c.mako"/>\\
            ${code_placement}int32_t ${stem}_run(${prefix}_model_context_t *ctx)
            {
                return ${k}top(${ptr(op.input_tensors[0], const=True)}, ${factor});
            }
            """
        )
    )

    class Local(TemplateOperator):
        TYPE = "ACME_SCALE"
        TEMPLATE = "scale.c.mako"
        TEMPLATE_DIRS = (templates,)
        KERNEL_LIBRARY = library(tmp_path)
        KERNELS = ("top",)

        def comment(self):
            return f"{super().comment()} (acme)"

        def compute_values(self):
            return {"factor": self.typed_options(ScaleOptions).factor}

    model, op = model_with_one_operator("ACME_SCALE", ScaleOptions(factor=3))
    operator = Local(op, model, platform=None, prefix="m")
    assert not operator.has_init and operator.kernel_calls() == {}
    assert [p.name for p in operator.kernel_sources()][-2:] == ["hk_top.h", "hk_top.c"]
    for sub in ("src", "includes-api"):
        (tmp_path / "out" / sub).mkdir(parents=True)
    operator.emit(tmp_path / "out")
    source = (tmp_path / "out" / "src" / "m_acme_scale_3.c").read_text()
    header = (tmp_path / "out" / "includes-api" / "m_acme_scale_3.h").read_text()
    assert source == (
        "/* ACME_SCALE operator 3 (acme) */\n"
        '#include "m_common.h"\n'
        '#include "m_acme_scale_3.h"\n'
        '#include "m_hk_top.h"\n'
        "\n"
        "int32_t m_acme_scale_3_run(m_model_context_t *ctx)\n"
        "{\n"
        "    return m_hk_top((const int8_t *)ctx->tensor_ptrs[m_x], 3);\n"
        "}\n"
    )
    assert header.startswith("/* ACME_SCALE operator 3 (acme) */\n#ifndef M_ACME_SCALE_3_H\n")
    assert "m_acme_scale_3_run(m_model_context_t *ctx);" in header
    assert "_init" not in header


def test_the_contract_check_reports_a_record_whose_files_are_missing(tmp_path):
    class Missing(TemplateOperator):
        TYPE = "ACME_MISSING"
        TEMPLATE = "missing.c.mako"
        TEMPLATE_DIRS = (tmp_path,)
        KERNEL_LIBRARY = KernelLibrary(tmp_path)
        KERNELS = ("absent",)

    def customize(context):
        register_operators(context, [OperatorRecord("ACME_MISSING", parse, None, Missing)])

    report = check_pack_contract(customize, compile=False)
    assert [r.key for r in report.records] == ["ACME_MISSING"]
    text = "\n".join(report.problems)
    assert "ACME_MISSING: Missing.KERNELS do not resolve: \"no kernel family 'absent'" in text
    assert "ACME_MISSING: Missing.TEMPLATE 'missing.c.mako' is in none of its TEMPLATE_DIRS" in text


def test_the_contract_check_reports_a_pack_whose_record_is_inconsistent():
    def customize(context):
        register_operators(context, [OperatorRecord("ACME_OTHER", parse, None, Scale)])

    report = check_pack_contract(customize, compile=False)
    assert len(report.problems) == 1
    assert report.problems[0].startswith("registration failed: ")
    assert "Scale.TYPE is 'ACME_SCALE', not the record's key" in report.problems[0]


def test_builtin_kernel_files_come_through_the_core_library():
    context = build_default_registry_context()
    pool = context.aot_operator_classes.get("AVERAGE_POOL_2D")
    assert issubclass(pool, TemplateOperator)
    assert pool.KERNEL_LIBRARY == KernelLibrary(*families.KERNEL_PATH)
    assert families.kernel_sources("pool") == pool.KERNEL_LIBRARY.sources("pool")
