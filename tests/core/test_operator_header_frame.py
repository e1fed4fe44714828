"""Every TemplateOperator's header comes from one Mako render per prefix, not one per operator.

:func:`helia_aot.pack.template_operator.operator_header` renders the core ``_operator.h.mako``
once with placeholders for the stem and the comment and fills them per operator. The text must
be what a full render gives, for every value the frame stands for, and a pack overriding the
header template (or values the placeholders cannot stand for) must still get a full render.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.codegen import render_template
from helia_aot.pack import template_operator
from helia_aot.pack.template_operator import HEADER_TEMPLATE, operator_header
from helia_aot.registry import build_default_registry_context
from helia_aot.testing.conv_chain import conv_chain_model
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.fixture(autouse=True)
def fresh_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(template_operator, "_FRAMES", {})


def _values(prefix: str, stem: str, comment: str, has_init: bool) -> dict[str, Any]:
    return {"prefix": prefix, "stem": stem, "comment": comment, "has_init": has_init, "op": None}


@settings(max_examples=25, deadline=None)
@given(
    prefix=st.sampled_from(["aot", "kws_v2", "Net"]),
    stem=st.text(min_size=1, max_size=12),
    comment=st.text(max_size=30),
    has_init=st.booleans(),
)
def test_frame_gives_the_full_render(prefix: str, stem: str, comment: str, has_init: bool) -> None:
    # Any text, printable or not (line breaks, NUL, U+2028, characters whose upper case is longer).
    values = _values(prefix, stem, comment, has_init)
    assert operator_header((), values) == render_template(HEADER_TEMPLATE, (), **values)


@pytest.mark.parametrize(
    ("stem", "comment"),
    [("aot_conv_2d_7", "CONV_2D operator 7"), ("straße_1", "${x} % <%doc> */"), ("a", "")],
)
def test_frame_gives_the_full_render_for_named_cases(stem: str, comment: str) -> None:
    for has_init in (False, True):
        values = _values("aot", stem, comment, has_init)
        assert operator_header((), values) == render_template(HEADER_TEMPLATE, (), **values)


def test_a_pack_overriding_the_header_template_gets_it(tmp_path: Path) -> None:
    (tmp_path / HEADER_TEMPLATE).write_text("/* own header of ${stem} */\n")
    values = _values("aot", "aot_mine_3", "MINE operator 3", False)
    assert operator_header((tmp_path,), values) == "/* own header of aot_mine_3 */\n"
    assert template_operator._FRAMES[((str(tmp_path),), "aot", False)] is None


def test_a_chain_renders_the_header_template_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    renders: list[str] = []
    real = template_operator.render_template

    def counting(name: str, *args: Any, **kwargs: Any) -> str:
        renders.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(template_operator, "render_template", counting)
    model = conv_chain_model(6, tmp_path / "chain.tflite")
    config = ConvertArgs.model_validate(
        {"model": {"path": str(model)}, "module": {"path": str(tmp_path / "out")}}
    )
    result = AotConverter(config, build_default_registry_context()).convert()
    assert renders.count(HEADER_TEMPLATE) == 1
    assert len(renders) == 1 + 6  # the header frame and each operator's source
    headers = sorted((result.output / "includes-api").glob(f"{result.prefix}_conv_2d_*.h"))
    assert len(headers) == 6
    for path in headers:
        stem = path.stem
        values = _values(result.prefix, stem, f"CONV_2D operator {stem.rsplit('_', 1)[1]}", False)
        assert path.read_text() == render_template(HEADER_TEMPLATE, (), **values)
