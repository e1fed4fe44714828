"""CUSTOM_NOOP: the starter of the custom-operator guide, a byte copy from input to output.

The code is the guide's, with two changes for the pack authoring surface, ``helia_aot.pack``:
the LiteRT accessors and the LiteRT object-API module come from there rather than from the core's
internal modules, and the customizer registers an ``OperatorRecord`` with ``register_operators``.
It writes its C by hand, which is what the starter teaches; ``gain_clip`` shows an operator
rendered with ``helia_aot.pack.TemplateOperator`` instead.
"""

from pathlib import Path

from helia_aot.air import AirModel, AirOperator, AirOperatorOptions, custom_code_to_op_key
from helia_aot.aot.operators import AotOperator
from helia_aot.pack import OperatorRecord, inputs_of, litert, operator_at, outputs_of, register_operators
from helia_aot.registry import RegistryContext

CUSTOM_CODE = "custom-noop"
CUSTOM_OP_KEY = custom_code_to_op_key(CUSTOM_CODE)


def parse_custom_noop(
    op_id: int,
    model: litert.ModelT,
    subgraph: litert.SubGraphT,
    air_model: AirModel,
) -> AirOperator:
    """Parse one LiteRT custom node into one AIR operator."""
    del model, air_model
    # The generated LiteRT classes leave every absent vector as None, so read
    # them through the accessors rather than indexing them directly.
    op = operator_at(subgraph, op_id)
    return AirOperator(
        id=str(op_id),
        op_type=CUSTOM_OP_KEY,
        input_ids=[str(tid) for tid in inputs_of(op) if tid >= 0],
        output_ids=[str(tid) for tid in outputs_of(op) if tid >= 0],
        named_tensors={},
        options=AirOperatorOptions(),
    )


class CustomNoopOperator(AotOperator):
    """Emit the C for one CUSTOM_NOOP node: a byte copy from input to output."""

    TYPE = CUSTOM_OP_KEY

    def on_resolve(self) -> None:
        """Reject a node the emitted C could not serve."""
        if len(self.input_tensors) != 1 or len(self.output_tensors) != 1:
            raise ValueError("CUSTOM_NOOP expects exactly one input and one output")
        if self.input_tensors[0].nbytes != self.output_tensors[0].nbytes:
            raise ValueError("CUSTOM_NOOP expects input and output of the same size")

    def emit(self, save_path: Path) -> None:
        """Write the operator's header and source into the module tree."""
        stem = f"{self.prefix}_{self.name}"
        source = self.input_tensors[0]
        destination = self.output_tensors[0]
        (save_path / "includes-api" / f"{stem}.h").write_text(
            "#pragma once\n\n"
            f'#include "{self.prefix}_common.h"\n\n'
            '#ifdef __cplusplus\nextern "C" {\n#endif\n\n'
            f"int32_t {stem}_init({self.prefix}_model_context_t *ctx);\n"
            f"int32_t {stem}_run({self.prefix}_model_context_t *ctx);\n\n"
            "#ifdef __cplusplus\n}\n#endif\n",
            encoding="utf-8",
            newline="\n",
        )
        (save_path / "src" / f"{stem}.c").write_text(
            f'#include "{self.prefix}_common.h"\n'
            f'#include "{stem}.h"\n\n'
            f"int32_t\n{stem}_init({self.prefix}_model_context_t *ctx)\n"
            "{\n    (void)ctx;\n    return 0;\n}\n\n"
            f"int32_t\n{stem}_run({self.prefix}_model_context_t *ctx)\n"
            "{\n"
            f"    const int8_t *__restrict input = "
            f"(const int8_t *)ctx->tensor_ptrs[{self.prefix}_{source.name}];\n"
            f"    int8_t *__restrict output = "
            f"(int8_t *)ctx->tensor_ptrs[{self.prefix}_{destination.name}];\n"
            "    if (input == output) { return 0; }\n"
            f"    arm_memcpy_s8(output, input, {destination.nbytes});\n"
            "    return 0;\n}\n",
            encoding="utf-8",
            newline="\n",
        )


OPERATORS = [OperatorRecord(CUSTOM_OP_KEY, parse_custom_noop, None, CustomNoopOperator)]
"""What the pack registers for CUSTOM_NOOP: a parser without options and the operator class."""


def customize_registry(context: RegistryContext) -> None:
    """Hook the parser and the operator class into a conversion."""
    register_operators(context, OPERATORS)
