"""The Load stage: a ``.tflite`` file in, a verified AIR model out.

The file is read once (:func:`~helia_aot.converters.litert.reader.read_model`), the registered
model hooks edit it, and it is checked once into a
:class:`~helia_aot.converters.litert.view.ModelView`; AIR is built from that view. Tensors come
straight from the chosen subgraph (ids are LiteRT tensor indices); operators come from the parsers
registered under each operator's canonical key. Every operator no parser accepts is collected so
one error lists them all, with the distribution that would add the support.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from helia_aot.air import (
    AirModel,
    AirOperator,
    AirTensor,
    AirTensorKind,
    TensorId,
    c_comment,
    c_identifier,
    verify_model,
)
from helia_aot.converters.litert import schema_access as sa
from helia_aot.converters.litert.reader import read_model
from helia_aot.converters.litert.source_indices import mark_source_indices, source_index, subgraph_is_marked
from helia_aot.converters.litert.validate import wiring_problems
from helia_aot.converters.litert.view import ModelView, SubgraphView
from helia_aot.converters.litert.view_builder import build_view
from helia_aot.errors import (
    DynamicShapeError,
    HeliaAotError,
    ModelLoadError,
    PluginError,
    UnsupportedModelError,
)
from helia_aot.litert import BINDINGS_MODULE
from helia_aot.litert.objects import LiteRTObject
from helia_aot.pipeline.regions_load import Failure, load_regions
from helia_aot.plugins.manager import distribution_installed

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.converters.litert.parser_types import LiteRTModelHook, LiteRTParser
    from helia_aot.litert import schema_py_generated as litert
    from helia_aot.registry.context import RegistryContext
    from helia_aot.registry.registry import Registry

BUILTIN_DISTRIBUTION = "helia-aot-ops-builtin"
"""The distribution whose operator pack parses LiteRT builtin operators."""


def _unblock_hint(names: list[str]) -> str:
    listed = ", ".join(names)
    return f"unblock {listed}: remove it from plugins.disabled (or add it to plugins.enabled)"


def missing_parser_reason(key: str, blocked: Mapping[str, str] | None = None) -> tuple[str, str | None]:
    """Why no parser handles ``key``, and the hint that would provide one (or None).

    ``blocked`` (entry-point name -> distribution) are installed plugins the configuration blocks:
    when one of them may provide the key, the reason says so instead of suggesting an install.
    """
    blocked = dict(blocked or {})
    if sa.is_known_builtin(key):
        packs = sorted(name for name, dist in blocked.items() if dist == BUILTIN_DISTRIBUTION)
        if packs:
            hint = _unblock_hint(packs)
            return f"the operator pack {BUILTIN_DISTRIBUTION} is installed but blocked; {hint}", hint
        if not distribution_installed(BUILTIN_DISTRIBUTION):
            hint = f"install {BUILTIN_DISTRIBUTION}"
            return f"no parser registered; {hint}", hint
        return "not supported by any installed operator pack", None
    if key.startswith("BUILTIN_"):
        return "builtin operator code unknown to this LiteRT schema; not supported", None
    if blocked:
        names = sorted(blocked)
        hint = _unblock_hint(names) + " if it provides the key " + key
        return f"no parser registered; installed but blocked plugins: {', '.join(names)}; {hint}", hint
    hint = f"install an operator pack that registers the key {key}"
    return f"no parser registered; {hint}", hint


def _registered(
    hooks: Registry[LiteRTModelHook] | Mapping[str, LiteRTModelHook] | Sequence[LiteRTModelHook],
) -> list[tuple[str, LiteRTModelHook]]:
    """``(name, hook)`` pairs of a registry, a mapping or a plain sequence, in their order."""
    if isinstance(hooks, Sequence):
        return [(getattr(hook, "__qualname__", repr(hook)), hook) for hook in hooks]
    return list(hooks.items())


def is_model_object(value: object) -> bool:
    """Whether ``value`` is a ``ModelT``: the object API ``read_model`` makes
    (:mod:`helia_aot.litert.objects`) or the flatc bindings' class, which a hook that built its
    model with them has imported already (so this never imports them)."""
    if isinstance(value, LiteRTObject):
        return value.TABLE == "Model"
    bindings = sys.modules.get(BINDINGS_MODULE)
    return bindings is not None and isinstance(value, bindings.ModelT)


def apply_model_hooks(
    model: litert.ModelT,
    hooks: Registry[LiteRTModelHook] | Mapping[str, LiteRTModelHook] | Sequence[LiteRTModelHook],
) -> litert.ModelT:
    """Run each hook on the model in order; a hook returns a replacement or None (edited in place)."""
    for name, hook in _registered(hooks):
        try:
            result = hook(model)
        except HeliaAotError:
            raise
        except Exception as exc:
            raise PluginError(
                f"LiteRT model hook {name!r} failed: {type(exc).__name__}: {exc}",
                hint="fix or disable the plugin that registered the hook",
            ) from exc
        if result is not None:
            if not is_model_object(result):
                raise PluginError(
                    f"LiteRT model hook {name!r} returned {type(result).__name__}, not a ModelT or None",
                    hint="a hook returns the (possibly new) ModelT or None",
                )
            model = result
    return model


def build_tensors(subgraph: SubgraphView, air: AirModel) -> None:
    """Add one AIR tensor per subgraph tensor, ids being the LiteRT indices."""
    for tensor in subgraph.tensors:
        if tensor.is_variable:  # state; its data (if any) is the value it starts from
            kind = AirTensorKind.PERSISTENT
        elif tensor.data is not None:
            kind = AirTensorKind.CONSTANT
        else:
            kind = AirTensorKind.SCRATCH
        air.add_tensor(
            AirTensor(
                id=TensorId(str(tensor.index)),
                name=air.unique_tensor_name(tensor.name),
                shape=tensor.shape,
                dtype=tensor.dtype,
                kind=kind,
                data=tensor.data,
                quantization=tensor.quantization,
                source_name=tensor.name,
            )
        )


def parse_operators(
    subgraph: SubgraphView,
    model: litert.ModelT,
    air: AirModel,
    parsers: Registry[LiteRTParser],
    blocked: Mapping[str, str] | None = None,
) -> list[Failure]:
    """Parse every operator of ``subgraph`` into ``air.operators``; return the ones that failed.

    Every node has been checked before any parser sees it; a parser gets the node's index and the
    object-API model and subgraph. A parser raising anything but a typed error or ValueError is a
    bug in its pack: PluginError names the parser.
    """
    failures: list[Failure] = []
    marked = subgraph_is_marked(subgraph.node)
    for op in subgraph.operators:
        index, key = op.index, op.key
        # The index in the file the user gave (hooks may have moved the operator): errors and
        # source_indices name it; a hook-made operator has none unless its parser states them.
        file_index = source_index(op.node) if marked else index
        parser = parsers.get(key) if key in parsers else None
        if parser is None:
            failures.append((_shown(file_index, index), key, *missing_parser_reason(key, blocked)))
            continue
        try:
            result = parser(index, model, subgraph.node, air)
        except (UnsupportedModelError, ValueError) as exc:
            failures.append((_shown(file_index, index), key, str(exc) or type(exc).__name__, None))
            continue
        except HeliaAotError:
            raise
        except Exception as exc:  # a parser bug: name the parser (and so the pack) it is in
            where = f"{getattr(parser, '__module__', '?')}.{getattr(parser, '__qualname__', repr(parser))}"
            raise PluginError(
                f"the parser {where} for {key} failed on operator #{index}: {type(exc).__name__}: {exc}",
                hint="report it to the operator pack that registered the parser",
                details={"parser": where, "key": key, "operator": index},
            ) from exc
        if not isinstance(result, AirOperator):
            raise PluginError(
                f"the parser for {key} returned {type(result).__name__}, not an AirOperator",
                hint="a parser returns the AirOperator it built",
            )
        if result.source_indices == (index,):  # the default; a parser stating others keeps them
            result.source_indices = () if file_index is None else (file_index,)
        air.operators.append(result)
    return failures


def build_operators(
    view: ModelView, air: AirModel, parsers: Registry[LiteRTParser], blocked: Mapping[str, str] | None = None
) -> None:
    """Parse every operator of the view's subgraph, then the subgraphs its control-flow operators
    run (see :mod:`helia_aot.pipeline.regions_load`); raise one UnsupportedModelError listing all
    that cannot be parsed."""
    failures = parse_operators(view.subgraph, view.node, air, parsers, blocked)
    if not failures:

        def parse(subgraph: SubgraphView, into: AirModel) -> list[Failure]:
            build_tensors(subgraph, into)
            return parse_operators(subgraph, view.node, into, parsers, blocked)

        failures = load_regions(view, air, parse)
    if failures:
        raise unsupported_operators_error(failures)


def _shown(file_index: int | None, position: int) -> int:
    """The index an error names: the file's, or the position for an operator a hook made."""
    return position if file_index is None else file_index


def _one_line(text: str) -> str:
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def unsupported_operators_error(failures: list[Failure]) -> UnsupportedModelError:
    """One error naming each failure as ``#<index> <KEY>: <reason>``, hints merged in order."""
    lines = [f"#{index} {key}: {_one_line(reason)}" for index, key, reason, _ in failures]
    hints: list[str] = []
    for *_, hint in failures:
        if hint and hint not in hints:
            hints.append(hint)
    noun = "operator" if len(failures) == 1 else "operators"
    return UnsupportedModelError(
        f"{len(failures)} {noun} cannot be converted:\n  " + "\n  ".join(lines),
        hint="; ".join(hints)
        if hints
        else "run `helia-aot plugins` to see which operators each installed pack supports",
        details=[{"index": i, "key": k, "reason": r} for i, k, r, _ in failures],
    )


def has_sparse_tensors(model: litert.ModelT) -> bool:
    """Whether any tensor of ``model`` is stored in LiteRT's sparse format."""
    return any(
        tensor.sparsity is not None
        for subgraph in sa.subgraphs_of(model)
        for tensor in sa.tensors_of(subgraph)
    )


def load_view(
    path: Path,
    subgraph_index: int,
    context: RegistryContext,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
) -> ModelView:
    """Read ``path``, fix the shapes of the inputs ``input_shapes`` names (``model.input_shapes``,
    propagated through the subgraph: :mod:`~helia_aot.pipeline.input_shapes`), run the
    registered model hooks on it and check subgraph ``subgraph_index``: the first half of Load,
    which ``helia-aot check`` runs exactly as a conversion does.

    Every constant stored sparse is made dense first
    (:func:`~helia_aot.converters.litert.sparsity.densify_model`). Raises ModelLoadError for a
    malformed file and one UnsupportedModelError naming every tensor and operator of the subgraph
    the compiler does not handle.
    """
    model = read_model(path)
    # Imported only for a model that needs them: most conversions have neither.
    if input_shapes:
        from helia_aot.pipeline.input_shapes import fix_input_shapes

        fix_input_shapes(model, Path(path).read_bytes(), subgraph_index, input_shapes)
    blocks: dict[tuple[int, int], tuple[int, ...]] = {}
    if has_sparse_tensors(model):
        from helia_aot.converters.litert.sparsity import densify_model

        blocks = densify_model(model)
    mark_source_indices(model)  # before any hook moves an operator
    model = apply_model_hooks(model, context.litert_model_hooks)
    view = build_view(model, subgraph_index, Path(path).name, getattr(context, "litert_arities", None))
    return replace(view, stored_blocks=blocks) if blocks else view


@contextmanager
def naming_dynamic_inputs(
    path: Path, subgraph_index: int, input_shapes: Mapping[str, Sequence[int]] | None = None
) -> Iterator[None]:
    """Around Load, Transform and Resolve: an UnsupportedModelError of a model that still has
    inputs of unknown size (not fixed by ``input_shapes``) becomes a DynamicShapeError naming
    them and the ``model.input_shapes`` entry that fixes them (the placeholder shape the file
    stores is often what the graph refuses)."""
    try:
        yield
    except DynamicShapeError:
        raise
    except UnsupportedModelError as error:
        from helia_aot.pipeline.input_shapes import dynamic_inputs, dynamic_shape_error

        try:
            unfixed = [
                i
                for i in dynamic_inputs(read_model(path), subgraph_index)
                if i.name not in (input_shapes or {})
            ]
        except HeliaAotError:  # the file itself is the problem: the error says so already
            raise error from None
        if not unfixed:
            raise
        raise dynamic_shape_error(error, unfixed) from error


def _subgraph_inputs(model: litert.ModelT, subgraph_index: int) -> list[litert.TensorT]:
    subgraphs = sa.subgraphs_of(model)
    if not 0 <= subgraph_index < len(subgraphs):
        return []
    subgraph = subgraphs[subgraph_index]
    return [sa.tensor_at(subgraph, int(index)) for index in sa.subgraph_inputs(subgraph)]


def _has_unknown_dimension(tensor: litert.TensorT) -> bool:
    """Whether the tensor's shape signature has a -1 (a cheap test before the full one)."""
    signature = tensor.shapeSignature
    return signature is not None and any(int(d) < 0 for d in signature)


def load_model(
    path: Path,
    subgraph_index: int,
    context: RegistryContext,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
) -> AirModel:
    """Read ``path`` and build the AIR model of subgraph ``subgraph_index`` (``input_shapes``:
    ``model.input_shapes``, see :func:`load_view`).

    ``context`` provides ``litert_model_hooks`` (run in registration order on the ModelT) and
    ``litert_parsers`` (canonical key -> ``parser(op_index, model, subgraph, air_model)``).
    """
    path = Path(path)
    view = load_view(path, subgraph_index, context, input_shapes)
    model = view.node
    air = AirModel(
        name=c_identifier(path.stem, fallback="model"),
        description=c_comment(view.description),
        metadata={
            "source_path": str(path),
            "subgraph_index": subgraph_index,
            "source_description": view.description,
            "source_schema_version": int(getattr(model, "version", 0) or 0),
        },
    )
    build_tensors(view.subgraph, air)
    if any(_has_unknown_dimension(tensor) for tensor in _subgraph_inputs(model, subgraph_index)):
        from helia_aot.pipeline.input_shapes import dynamic_inputs

        # Converted at the stored (placeholder) shape: the report's model.input_shapes hint.
        air.metadata["placeholder_inputs"] = [
            {"position": i.position, "name": i.name, "shape": list(i.shape), "signature": list(i.signature)}
            for i in dynamic_inputs(model, subgraph_index)
        ]
    if view.stored_blocks:  # read by kernels that keep only the nonzero blocks (goal size)
        air.metadata["stored_blocks"] = {
            TensorId(str(t)): block for (s, t), block in view.stored_blocks.items() if s == subgraph_index
        }
    air.inputs = [TensorId(str(i)) for i in view.subgraph.inputs]
    air.outputs = [TensorId(str(i)) for i in view.subgraph.outputs]
    # A context built without plugins (a test's namespace of registries) blocks none.
    blocked = getattr(context, "blocked_plugins", None)
    build_operators(view, air, context.litert_parsers, blocked)

    problems = verify_model(air) + wiring_problems(air)
    if problems:
        raise ModelLoadError(
            f"{path.name} does not form a valid graph: "
            + "; ".join(problems[:10])
            + (f"; and {len(problems) - 10} more" if len(problems) > 10 else ""),
            hint="the model file is malformed (or an operator parser built a broken operator)",
            details=problems,
        )
    return air


__all__ = [
    "BUILTIN_DISTRIBUTION",
    "apply_model_hooks",
    "build_operators",
    "build_tensors",
    "distribution_installed",
    "load_model",
    "load_view",
    "naming_dynamic_inputs",
    "missing_parser_reason",
    "parse_operators",
    "unsupported_operators_error",
]
