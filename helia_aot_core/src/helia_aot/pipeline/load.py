"""The Load stage: a ``.tflite`` file in, a verified AIR model out.

Tensors come straight from the chosen subgraph (ids are LiteRT tensor indices); operators come
from the parsers registered under each operator's canonical key. Every operator no parser accepts
is collected so one error lists them all, with the distribution that would add the support.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

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
from helia_aot.converters.litert.reader import (
    MAX_TENSOR_BYTES,
    buffer_data,
    element_count,
    quantization_of,
    read_model,
    tensor_dtype,
)
from helia_aot.converters.litert.validate import check_operator, wiring_problems
from helia_aot.errors import (
    HeliaAotError,
    InvalidConfigError,
    ModelLoadError,
    PluginError,
    UnsupportedModelError,
)
from helia_aot.litert import schema_py_generated as litert

BUILTIN_DISTRIBUTION = "helia-aot-ops-builtin"
"""The distribution whose operator pack parses LiteRT builtin operators."""

_MALFORMED_HINT = "the model file is malformed; re-export it with the LiteRT converter"

Failure = tuple[int, str, str, str | None]
"""An operator that cannot be parsed: (index, key, reason, install hint or None)."""


def distribution_installed(name: str) -> bool:
    """Whether the distribution ``name`` is installed (its metadata can be found)."""
    try:
        importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


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


def _registered(registry: Any) -> Iterable[tuple[str, Any]]:
    """``(name, value)`` pairs of a registry (or a plain sequence) in registration order."""
    if hasattr(registry, "items"):
        return list(registry.items())
    return [(getattr(v, "__qualname__", repr(v)), v) for v in registry]


def apply_model_hooks(model: litert.ModelT, hooks: Any) -> litert.ModelT:
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
            if not isinstance(result, litert.ModelT):
                raise PluginError(
                    f"LiteRT model hook {name!r} returned {type(result).__name__}, not a ModelT or None",
                    hint="a hook returns the (possibly new) ModelT or None",
                )
            model = result
    return model


def _tensor_shape(tensor: litert.TensorT, dtype: Any, what: str) -> tuple[int, ...]:
    """The static shape, checked (before anything is allocated) to fit in MAX_TENSOR_BYTES."""
    shape = list(sa.shape_of(tensor))
    if shape and shape[0] == -1:
        shape[0] = 1  # a dynamic batch runs as one sample, as the interpreter's default shape does
    nbytes = element_count(tuple(shape), what) * dtype.itemsize
    if nbytes > MAX_TENSOR_BYTES:
        raise UnsupportedModelError(
            f"{what} needs {nbytes} bytes (shape {shape}), too many", hint="tensors must fit in 2**31 bytes"
        )
    return tuple(shape)


def build_tensors(model: litert.ModelT, subgraph: litert.SubGraphT, air: AirModel) -> None:
    """Add one AIR tensor per subgraph tensor, ids being the LiteRT indices."""
    for index, tensor in enumerate(sa.tensors_of(subgraph)):
        source_name = sa.name_of(tensor)
        what = f"tensor {index} ({source_name!r})"
        try:
            dtype = tensor_dtype(tensor.type)
        except UnsupportedModelError as exc:
            raise UnsupportedModelError(f"{what}: {exc.message}", hint=exc.hint) from None
        shape = _tensor_shape(tensor, dtype, what)
        data = buffer_data(model, tensor)
        if data is not None and tensor.isVariable:
            # The LiteRT runtime refuses this too: variables start zeroed, never from a buffer.
            raise UnsupportedModelError(
                f"{what} is a variable with initial buffer data",
                hint="initialise state with an ASSIGN_VARIABLE instead",
            )
        quantization = quantization_of(tensor)
        if data is None and quantization is not None and not np.all(quantization.scale > 0):
            # A zero activation scale maps every value to the zero point; the requantizing
            # multipliers derived from it would divide by zero.
            raise ModelLoadError(
                f"{what} has quantization scale 0; a tensor computed at run time needs a positive scale",
                hint=_MALFORMED_HINT,
            )
        if data is not None:
            kind = AirTensorKind.CONSTANT
        elif tensor.isVariable:
            kind = AirTensorKind.PERSISTENT
        else:
            kind = AirTensorKind.SCRATCH
        air.add_tensor(
            AirTensor(
                id=TensorId(str(index)),
                name=air.unique_tensor_name(source_name),
                shape=shape,
                dtype=dtype,
                kind=kind,
                data=data,
                quantization=quantization,
                source_name=source_name,
            )
        )


def build_operators(
    model: litert.ModelT,
    subgraph: litert.SubGraphT,
    air: AirModel,
    parsers: Any,
    blocked: Mapping[str, str] | None = None,
) -> None:
    """Parse every operator; raise one UnsupportedModelError listing all that cannot be parsed.

    Each node passes :func:`check_operator` before its parser sees it. A parser raising anything
    but a typed error or ValueError is a bug in its pack: PluginError names the parser.
    """
    failures: list[Failure] = []
    for index, op in enumerate(sa.operators_of(subgraph)):
        key = sa.op_key(model, op)
        check_operator(model, subgraph, index, key)
        parser: Callable[..., Any] | None = parsers.get(key) if key in parsers else None
        if parser is None:
            failures.append((index, key, *missing_parser_reason(key, blocked)))
            continue
        try:
            result = parser(index, model, subgraph, air)
        except (UnsupportedModelError, ValueError) as exc:
            failures.append((index, key, str(exc) or type(exc).__name__, None))
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
        air.operators.append(result)
    if failures:
        raise unsupported_operators_error(failures)


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


def load_model(path: Path, subgraph_index: int, context: Any) -> AirModel:
    """Read ``path`` and build the AIR model of subgraph ``subgraph_index``.

    ``context`` provides ``litert_model_hooks`` (run in registration order on the ModelT) and
    ``litert_parsers`` (canonical key -> ``parser(op_index, model, subgraph, air_model)``).
    """
    path = Path(path)
    model = apply_model_hooks(read_model(path), context.litert_model_hooks)
    subgraphs = sa.subgraphs_of(model)
    if not subgraphs:
        raise UnsupportedModelError(f"{path.name} has no subgraphs", hint="the model is empty")
    if (
        isinstance(subgraph_index, bool)
        or not isinstance(subgraph_index, int)
        or not 0 <= subgraph_index < len(subgraphs)
    ):
        raise InvalidConfigError(
            f"subgraph index {subgraph_index!r} is out of range: {path.name} has "
            f"{len(subgraphs)} subgraph(s)",
            hint=f"choose a subgraph from 0 to {len(subgraphs) - 1}",
        )
    subgraph = subgraphs[subgraph_index]
    if not sa.operators_of(subgraph):
        raise UnsupportedModelError(
            f"subgraph {subgraph_index} of {path.name} has no operators",
            hint="a model needs at least one operator to convert",
        )

    description = sa.description_of(model)
    air = AirModel(
        name=c_identifier(path.stem, fallback="model"),
        description=c_comment(description),
        metadata={
            "source_path": str(path),
            "subgraph_index": subgraph_index,
            "source_description": description,
        },
    )
    build_tensors(model, subgraph, air)
    for index in [*sa.subgraph_inputs(subgraph), *sa.subgraph_outputs(subgraph)]:
        sa.tensor_at(subgraph, index)  # an out-of-range input or output is a ModelLoadError
    air.inputs = [TensorId(str(i)) for i in sa.subgraph_inputs(subgraph)]
    air.outputs = [TensorId(str(i)) for i in sa.subgraph_outputs(subgraph)]
    # A context built without plugins (a test's namespace of registries) blocks none.
    blocked = getattr(context, "blocked_plugins", None)
    build_operators(model, subgraph, air, context.litert_parsers, blocked)

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
    "missing_parser_reason",
    "unsupported_operators_error",
]
