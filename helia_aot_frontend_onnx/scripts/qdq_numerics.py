"""How onnxruntime's sessions and the exact-arithmetic QDQ model agree on the QDQ test models
(run by hand, like make_models.py, in the environment that has onnxruntime).

For each ``<name>_qdq.onnx`` of ``tests/data`` and its golden inputs it compares, in steps of
the output's quantization scale, three results: onnxruntime's default session (optimized: QDQ
groups fused into integer kernels where it has them), its session without graph optimizations
(every node dequantize -> float -> quantize), and ``exact_model``: a numpy evaluation of the
graph in which Conv and Gemm accumulate exactly in integers and requantize with the float32
multiplier ``x_scale * w_scale / y_scale`` rounded half to even (onnxruntime's integer kernels,
and helia-aot's ``requantization: onnx`` kernels), averages sum exactly and scale by
``x_scale / (y_scale * count)``, Add dequantizes, adds and quantizes in float32, a Softmax between
a DequantizeLinear and a QuantizeLinear is onnxruntime's QLinearSoftmax (``qlinear_softmax``: the
lookup table its default session fuses the three into), and the other nodes (BatchNormalization,
Flatten) run in float32 between their DequantizeLinear and QuantizeLinear (QuantizeLinear divides
by the scale and rounds half to even). Prints one row per model and pair: the fraction of
output elements that differ and the largest difference in steps.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
F32 = np.float32


def quantize(v: np.ndarray, scale: float, zp: int) -> np.ndarray:
    return np.clip(np.rint(v.astype(F32) / F32(scale)) + zp, -128, 127).astype(np.int8)


def requantize(acc: np.ndarray, mult: np.ndarray, zp: int) -> np.ndarray:
    return np.clip(np.rint(acc.astype(F32) * mult.astype(F32)) + zp, -128, 127).astype(np.int8)


def conv_int(x: np.ndarray, w: np.ndarray, attrs: dict) -> np.ndarray:
    """Exact integer NCHW convolution (x and w already centred, int64)."""
    n, c, h, wd = x.shape
    oc, icg, kh, kw = w.shape
    group = int(attrs.get("group", 1))
    sh, sw = attrs.get("strides", [1, 1])
    dh, dw = attrs.get("dilations", [1, 1])
    pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr), np.int64)
    xp[:, :, pt : pt + h, pl : pl + wd] = x
    oh = (h + pt + pb - (kh - 1) * dh - 1) // sh + 1
    ow = (wd + pl + pr - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, oc, oh, ow), np.int64)
    ocg = oc // group
    for g in range(group):
        xs = xp[:, g * icg : (g + 1) * icg]
        ws = w[g * ocg : (g + 1) * ocg]
        for ky in range(kh):
            for kx in range(kw):
                patch = xs[:, :, ky * dh : ky * dh + sh * oh : sh, kx * dw : kx * dw + sw * ow : sw][
                    :, :, :oh, :ow
                ]
                out[:, g * ocg : (g + 1) * ocg] += np.einsum("nchw,oc->nohw", patch, ws[:, :, ky, kx])
    return out


def qlinear_softmax(xq: np.ndarray, x_scale: float, y_scale: float, y_zp: int) -> np.ndarray:
    """onnxruntime's QLinearSoftmax (its default session's fusion of a QDQ Softmax) on int8 rows
    along the last axis: exp from a table of float32 entries exp((d + shift) * x_scale) for the
    difference d = x - max(row), shift = max(0, ln(FLT_MAX / depth) - 5) / x_scale (the float
    quotient, the logarithm and exp in double); the row's entries summed in order in float32;
    each output rne(entry / sum * floor(1 / y_scale)) + y_zp in float32, saturated to int8 (the
    order that matches onnxruntime 1.32 on 1.5 million random elements, the overflowing ones
    too)."""
    depth = xq.shape[-1]
    scale = float(F32(x_scale))
    shift = max(0.0, float(np.log(np.float64(F32(np.finfo(F32).max) / F32(depth)))) - 5.0) / scale
    entries = np.exp((np.arange(-255, 1, dtype=np.float64) + shift) * scale).astype(F32)  # d = -255..0
    d = xq.astype(np.int64) - xq.max(axis=-1, keepdims=True)
    e = entries[d + 255]
    total = np.zeros(xq.shape[:-1], F32)
    for j in range(depth):
        total = (total + e[..., j]).astype(F32)
    multiplier = F32(np.floor(F32(1.0) / F32(y_scale)))
    ratio = ((e / total[..., None]).astype(F32) * multiplier).astype(F32)
    return np.clip(np.rint(ratio).astype(np.int64) + y_zp, -128, 127).astype(np.int8)


def exact_model(model: onnx.ModelProto, x: np.ndarray, tensor: str | None = None) -> np.ndarray:
    """The graph's output (or ``tensor``) for input x under the exact-arithmetic QDQ semantics."""
    g = model.graph
    consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    values: dict[str, np.ndarray] = {g.input[0].name: x}
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for node in g.node:
        for i in node.input:
            consumers.setdefault(i, []).append(node)
    dq_source: dict[str, str] = {}  # DequantizeLinear output -> its quantized input

    def get(name: str) -> np.ndarray:
        return values[name] if name in values else consts[name]

    def qparams(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        node = next(n for n in g.node if n.output[0] == name)
        zp = get(node.input[2]) if len(node.input) > 2 else np.zeros(1, np.int8)
        return (
            get(node.input[0]).astype(np.int64),
            np.atleast_1d(get(node.input[1])).astype(F32),
            np.atleast_1d(zp).astype(np.int64),
        )

    def attrs(node: onnx.NodeProto) -> dict:
        return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}

    done: set[str] = set()
    for node in g.node:
        if node.output[0] in done:
            continue
        op, out = node.op_type, node.output[0]
        after = consumers.get(out, [])
        q_next = after[0] if len(after) == 1 and after[0].op_type == "QuantizeLinear" else None
        ins_dq = all(i in dq_source for i in node.input if i)
        if op == "DequantizeLinear":
            q, s, z = (
                get(node.input[0]).astype(np.int64),
                np.atleast_1d(get(node.input[1])).astype(F32),
                np.atleast_1d(get(node.input[2]) if len(node.input) > 2 else 0).astype(np.int64),
            )
            axis = int(attrs(node).get("axis", 1))
            shape = [1] * q.ndim
            if s.size > 1:
                shape[axis] = s.size
            values[out] = ((q - z.reshape(shape)).astype(F32) * s.reshape(shape)).astype(F32)
            dq_source[out] = node.input[0]
        elif op == "QuantizeLinear":
            s, z = float(get(node.input[1])), int(get(node.input[2]))
            q = quantize(get(node.input[0]), s, z)
            values[out] = q
        elif (
            q_next is not None
            and ins_dq
            and op in ("Conv", "Gemm", "Add", "AveragePool", "GlobalAveragePool")
        ):
            sy, zy = float(get(q_next.input[1])), int(get(q_next.input[2]))
            xq, sx, zx = qparams(node.input[0])
            a = attrs(node)
            if op in ("Conv", "Gemm"):
                wq, sw, zw = qparams(node.input[1])
                mult = (F32(sx[0]) * sw) / F32(sy)
                if op == "Conv":
                    acc = conv_int(xq - zx[0], wq - zw.reshape(-1, 1, 1, 1) if zw.size > 1 else wq - zw[0], a)
                    shape = (1, -1, 1, 1)
                else:
                    w2 = wq - (zw.reshape(-1, 1) if zw.size > 1 else zw[0])
                    w2 = w2.T if a.get("transB", 0) else w2
                    acc = (xq - zx[0]) @ w2
                    shape = (1, -1)
                if len(node.input) > 2 and node.input[2]:
                    bq, _, _ = qparams(node.input[2])
                    acc = acc + bq.reshape(shape)
                y = requantize(acc, np.broadcast_to(mult, mult.shape).reshape(shape), zy)
            elif op == "Add":
                yq, sb, zb = qparams(node.input[1])
                va = F32(sx[0]) * (xq - zx[0]).astype(F32)
                vb = F32(sb[0]) * (yq - zb[0]).astype(F32)
                y = quantize((va + vb).astype(F32), sy, zy)
            else:
                kh, kw = (xq.shape[2], xq.shape[3]) if op == "GlobalAveragePool" else a["kernel_shape"]
                sh, sw_ = (1, 1) if op == "GlobalAveragePool" else a.get("strides", [1, 1])
                if any(a.get("pads", [0])):
                    raise SystemExit("padded average pools are not modelled here")
                n, c, h, w = xq.shape
                oh, ow = (h - kh) // sh + 1, (w - kw) // sw_ + 1
                acc = np.zeros((n, c, oh, ow), np.int64)
                for i in range(oh):
                    for j in range(ow):
                        acc[:, :, i, j] = (
                            xq[:, :, i * sh : i * sh + kh, j * sw_ : j * sw_ + kw] - zx[0]
                        ).sum(axis=(2, 3))
                mult = F32(sx[0]) / (F32(sy) * F32(kh * kw))
                y = requantize(acc, np.array(mult), zy)
            values[q_next.output[0]] = y
            done.add(q_next.output[0])
        elif q_next is not None and ins_dq and op == "Softmax":
            xq, sx, zx = qparams(node.input[0])
            axis = int(attrs(node).get("axis", -1))
            sy, zy = float(get(q_next.input[1])), int(get(q_next.input[2]))
            y = np.moveaxis(qlinear_softmax(np.moveaxis(xq, axis, -1), float(sx[0]), sy, zy), -1, axis)
            values[q_next.output[0]] = y
            done.add(q_next.output[0])
        elif op == "Flatten":
            v = get(node.input[0])
            axis = int(attrs(node).get("axis", 1))
            values[out] = v.reshape(int(np.prod(v.shape[:axis])), -1)
        elif op == "Softmax":
            v = get(node.input[0]).astype(F32)
            e = np.exp(v - v.max(axis=-1, keepdims=True)).astype(F32)
            values[out] = (e / e.sum(axis=-1, keepdims=True)).astype(F32)
        elif op == "BatchNormalization":
            v = get(node.input[0]).astype(F32)
            scale, bias, mean, var = (get(i).astype(F32) for i in node.input[1:5])
            eps = F32(attrs(node).get("epsilon", 1e-5))
            shape = (1, -1) + (1,) * (v.ndim - 2)
            inv = (scale / np.sqrt(var + eps)).astype(F32)
            values[out] = ((v - mean.reshape(shape)) * inv.reshape(shape) + bias.reshape(shape)).astype(F32)
        elif op == "Relu":
            values[out] = np.maximum(get(node.input[0]), F32(0))
        else:
            raise SystemExit(f"{op} is not modelled")
    return values[tensor or g.output[0].name]


def softmax_input(model: onnx.ModelProto) -> str | None:
    """The int8 tensor whose dequantization feeds the Softmax (the quantized logits), if any."""
    nodes = {n.output[0]: n for n in model.graph.node}
    soft = next((n for n in model.graph.node if n.op_type == "Softmax"), None)
    if soft is None or nodes[soft.input[0]].op_type != "DequantizeLinear":
        return None
    return str(nodes[soft.input[0]].input[0])


def with_output(model: onnx.ModelProto, tensors: list[str], path: Path) -> Path:
    """A copy of the model that also outputs ``tensors`` (int8), so sessions can be compared there."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for tensor in tensors:
        copy.graph.output.append(onnx.helper.make_tensor_value_info(tensor, onnx.TensorProto.INT8, None))
    onnx.save(copy, str(path))
    return path


def output_step(model: onnx.ModelProto) -> float:
    last = next(n for n in model.graph.node if n.output[0] == model.graph.output[0].name)
    if last.op_type != "DequantizeLinear":
        raise SystemExit("the model's output is not dequantized")
    return float(numpy_helper.to_array(next(t for t in model.graph.initializer if t.name == last.input[1])))


def compare(a: np.ndarray, b: np.ndarray, step: float) -> tuple[int, int]:
    """(how many elements differ, the largest difference), in steps of ``step``."""
    steps = np.rint(np.abs(a.astype(np.float64) - b.astype(np.float64)) / step).astype(np.int64)
    return int((steps != 0).sum()), int(steps.max())


def row(stem: str, a: str, b: str, count: int, total: int, label: str, worst: int) -> str:
    share = f"{count / total:.3%}"
    return (
        f"{stem:22s} {a:>8s} vs {b:<12s} {count:4d} of {total:6d} {label} differ ({share}), max {worst} steps"
    )


def session(path: Path, optimized: bool) -> ort.InferenceSession:
    options = ort.SessionOptions()
    if not optimized:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def main() -> None:
    print(f"onnxruntime {ort.__version__}")
    for path in sorted(DATA.glob("*_qdq.onnx")):
        model = onnx.load(str(path))
        golden = np.load(path.with_suffix(".npz"))
        inputs = golden["input"]
        step = output_step(model)
        name = model.graph.input[0].name
        runs = {
            "default": np.concatenate([session(path, True).run(None, {name: x})[0] for x in inputs]),
            "unoptimized": np.concatenate([session(path, False).run(None, {name: x})[0] for x in inputs]),
        }
        # The graph ends in a DequantizeLinear, which the exact model evaluates in float32 too.
        runs["exact"] = np.concatenate([exact_model(model, x) for x in inputs])
        assert np.array_equal(runs["default"], golden["output"]), "the golden data is not this onnxruntime's"
        for a, b in (("default", "unoptimized"), ("exact", "default"), ("exact", "unoptimized")):
            count, worst = compare(runs[a], runs[b], step)
            print(row(path.stem, a, b, count, runs[a].size, "output elements", worst))
        logits = softmax_input(model)
        activations = [
            n.output[0] for n in model.graph.node if n.op_type == "QuantizeLinear" and n.input[0] != name
        ]
        for label, tensors in (
            ("quantized logits", [logits] if logits else []),
            ("activation elements", activations),
        ):
            if not tensors:
                continue
            extra = with_output(model, tensors, Path("/tmp") / f"{path.stem}_extra.onnx")
            at = {
                kind: [
                    np.concatenate(v)
                    for v in zip(*[session(extra, opt).run(tensors, {name: x}) for x in inputs], strict=True)
                ]
                for kind, opt in (("default", True), ("unoptimized", False))
            }
            at["exact"] = [np.concatenate([exact_model(model, x, t) for x in inputs]) for t in tensors]
            for a, b in (("default", "unoptimized"), ("exact", "default"), ("exact", "unoptimized")):
                flat_a = np.concatenate([v.reshape(-1) for v in at[a]])
                flat_b = np.concatenate([v.reshape(-1) for v in at[b]])
                count, worst = compare(flat_a, flat_b, 1.0)
                print(row(path.stem, a, b, count, flat_a.size, label, worst))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
