"""The HTML report a module carries with ``documentation.html: true``, and the notebook summary.

The page is parsed with html.parser: it must be self-contained, draw exactly one rectangle per
scratch tensor of the residency report at that tensor's offset, outline the operator where the most
scratch bytes are live (worked out here from the residency report and the operator views), and list
every operator with its figures.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs

DATA = Path(__file__).resolve().parents[1] / "data" / "models"
MODELS = ["mlperf_kws_dscnn_int8", "mlperf_vww_mobilenetv1_025_int8"]


class Page(HTMLParser):
    """Elements by tag with their attributes, the SVGs' rects, and the text of table cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.svgs: list[dict] = []
        self.rows: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._title: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "svg":
            self.svgs.append({"rects": [], "peak": None, "titles": []})
        elif tag == "rect":
            self.svgs[-1]["rects"].append(attrs)
        elif tag == "path" and attrs.get("class") == "peak":
            self.svgs[-1]["peak"] = attrs
        elif tag == "table":
            self._table = attrs.get("class", "")
            self.rows.setdefault(self._table, [])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "title":
            self._title = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows[self._table].append(self._row)
            self._row = None
        elif tag == "title" and self._title is not None:
            if self.svgs:
                self.svgs[-1]["titles"].append("".join(self._title))
            self._title = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._title is not None:
            self._title.append(data)


def convert(model: str, out: Path, html: bool = True):
    return AotConverter(
        ConvertArgs.model_validate(
            {
                "model": {"path": str(DATA / f"{model}.tflite")},
                "module": {"path": str(out), "name": model, "prefix": "m"},
                "memory": {"dump_residency_json": True},
                "documentation": {"html": html},
                "result_views": True,
            }
        )
    ).convert()


@pytest.fixture(scope="module", params=MODELS)
def converted(request, tmp_path_factory):
    result = convert(request.param, tmp_path_factory.mktemp("html"))
    page = Page()
    page.feed((result.output / "m_report.html").read_text(encoding="utf-8"))
    residency = json.loads((result.output / "m_residency.json").read_text())
    return result, page, residency


def test_one_rectangle_per_scratch_tensor(converted):
    result, page, residency = converted
    scratch = {t["id"]: t for t in residency["tensors"] if t["role"] == "scratch"}
    assert len(page.svgs) == len(residency["arenas"]["scratch"]) == 1
    rects = page.svgs[0]["rects"]
    assert len(rects) == len(scratch)
    assert sorted(r["data-tensor"] for r in rects) == sorted(scratch)


def test_rectangles_sit_at_offset_and_lifetime(converted):
    result, page, residency = converted
    scratch = {t["id"]: t for t in residency["tensors"] if t["role"] == "scratch"}
    used = residency["arenas"]["scratch"][0]["used"]
    rects = {r["data-tensor"]: r for r in page.svgs[0]["rects"]}
    bottom = max(float(r["y"]) + float(r["height"]) for r in rects.values())
    # Model inputs start at operator 0 and outputs end at the last one: those edges span the axis.
    column = min(float(r["x"]) for r in rects.values())
    unit_x = (max(float(r["x"]) + float(r["width"]) for r in rects.values()) - column) / len(result.operators)
    for tid, tensor in scratch.items():
        first, last = lifetime(result, tid)
        rect = rects[tid]
        assert float(rect["width"]) == pytest.approx((last - first + 1) * unit_x, abs=0.05)
        assert float(rect["x"]) == pytest.approx(column + first * unit_x, abs=0.05)
        top_byte = (bottom - float(rect["y"])) / (bottom - min(float(r["y"]) for r in rects.values())) * used
        assert top_byte == pytest.approx(tensor["offset"] + tensor["size"], abs=used / 150)


def lifetime(result, tid: str) -> tuple[int, int]:
    """Operator indices touching ``tid``; model inputs from 0 and outputs to the end."""
    touched = [
        op.layer_index
        for op in result.operators
        if tid in op.input_ids or tid in op.output_ids or tid in op.local_tensor_ids
    ]
    tensor = next(t for t in result.tensors if t.id == tid)
    if tensor.input_index is not None:
        touched.append(0)
    if tensor.output_index is not None:
        touched.append(len(result.operators) - 1)
    return min(touched), max(touched)


def test_the_peak_is_outlined_where_the_most_bytes_are_live(converted):
    result, page, residency = converted
    scratch = [t for t in residency["tensors"] if t["role"] == "scratch"]
    live = []
    for index in range(len(result.operators)):
        ranges = sorted(
            (t["offset"], t["offset"] + t["size"])
            for t in scratch
            if lifetime(result, t["id"])[0] <= index <= lifetime(result, t["id"])[1]
        )
        covered, end = 0, 0
        for start, stop in ranges:
            covered += max(0, stop - max(start, end))
            end = max(end, stop)
        live.append(covered)
    peak = live.index(max(live))
    titles = page.svgs[0]["titles"]
    assert f"peak: {max(live):,} bytes live at operator {peak}" in titles
    hinted = [op.index for op in result.report.operators for h in op.hints if h.kind == "scratch_peak"]
    assert hinted == [peak]
    # The table under the picture names what lives there.
    names = {row[0] for row in page.rows["peak"][1:]}
    expected = {
        t["name"] for t in scratch if lifetime(result, t["id"])[0] <= peak <= lifetime(result, t["id"])[1]
    }
    assert names == expected


def test_operator_table_lists_every_operator(converted):
    result, page, _ = converted
    header, *rows = page.rows["operators"]
    assert header[:7] == ["#", "Id", "Type", "Source", "MACs", "Parameters", "Kernel"]
    assert "Inputs" in header and "Outputs" in header
    assert len(rows) == len(result.operators)
    for row, op in zip(rows, result.report.operators, strict=True):
        assert row[0] == str(op.index) and row[2] == op.op_type
        assert row[4] == ("-" if op.macs is None else f"{op.macs:,}")
        assert all(entry in row[6] for entry in (op.kernel_calls or {}).values())
    tensors = {t.id: t for t in result.tensors}
    first_output = tensors[result.operators[0].output_ids[0]]
    assert f"{first_output.nbytes:,} B" in rows[0][header.index("Outputs")]


def test_page_is_self_contained(converted):
    _, page, _ = converted
    tags = {tag for tag, _ in page.tags}
    assert not tags & {"script", "link", "img", "iframe", "object", "embed"}
    for _, attrs in page.tags:
        for name in ("src", "href", "xlink:href"):
            assert name not in attrs
    assert ("meta", {"charset": "utf-8"}) in page.tags


def test_arena_table_is_the_reports(converted):
    result, page, _ = converted
    header, *rows = page.rows["arenas"]
    assert header[:4] == ["Region", "Role", "Memory", "Used (B)"]
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        (str(a.region), str(a.role), a.memory, f"{a.used:,}") for a in result.report.arenas
    ]


def test_report_is_deterministic_and_optional(tmp_path):
    first = convert(MODELS[0], tmp_path / "a")
    second = convert(MODELS[0], tmp_path / "b")
    assert (first.output / "m_report.html").read_bytes() == (second.output / "m_report.html").read_bytes()
    plain = convert(MODELS[0], tmp_path / "c", html=False)
    assert not (plain.output / "m_report.html").exists()


def test_result_renders_as_html_in_a_notebook(converted):
    result, _, _ = converted
    summary = Page()
    summary.feed(result._repr_html_())
    cells = [c for row in summary.rows["facts"] for c in row]
    assert str(result.output) in cells and result.prefix in cells
    assert len(summary.rows["operators"]) == len(result.operators) + 1
    assert len(summary.rows["arenas"]) == len(result.report.arenas) + 1
