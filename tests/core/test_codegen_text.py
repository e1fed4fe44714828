"""Generated text is written and rendered the same way on the fast paths as on the plain ones.

``write_text_file`` writes through file descriptors: the bytes and the file mode must be what
``open(path, "wb")`` gives (the module's files are compared across runs and with goldens).
``templates_checked_once`` checks a template file once within Emit, and again after it.
"""

from __future__ import annotations

import os

from helia_aot.codegen import templates
from helia_aot.codegen.files import write_text_file
from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=10, deadline=None)
@given(st.text(max_size=200))
def test_write_text_file_writes_the_utf8_bytes(tmp_path_factory, text):
    path = tmp_path_factory.getbasetemp() / "write_text_file.c"  # one file, replaced each time
    path.write_bytes(b"an older, longer file that must be replaced whole" * 20)
    write_text_file(path, text)
    assert path.read_bytes() == text.encode("utf-8")


def test_write_text_file_gives_the_mode_open_gives(tmp_path):
    write_text_file(tmp_path / "a.c", "x")
    with open(tmp_path / "b.c", "wb") as handle:
        handle.write(b"x")
    assert os.stat(tmp_path / "a.c").st_mode == os.stat(tmp_path / "b.c").st_mode


def test_templates_are_checked_once_inside_the_block_only(tmp_path, monkeypatch):
    monkeypatch.setenv(templates.CACHE_ENV, "off")
    templates.compiled_template_dir.cache_clear()
    try:
        page = tmp_path / "page.mako"
        page.write_text("first ${x}\n")
        renderer = templates.TemplateRenderer([tmp_path])
        stats: list[str] = []
        real_stat = os.stat

        def counting_stat(path, *args, **kwargs):
            if str(path) == str(page):
                stats.append(str(path))
            return real_stat(path, *args, **kwargs)

        assert renderer.render("page.mako", x=0) == "first 0\n"  # loaded
        monkeypatch.setattr(os, "stat", counting_stat)
        with templates.templates_checked_once():
            for x in range(5):
                assert renderer.render("page.mako", x=x) == f"first {x}\n"
        assert len(stats) == 1
        renderer.render("page.mako", x=1)
        renderer.render("page.mako", x=2)
        assert len(stats) == 3  # outside the block every render checks the file again
        monkeypatch.setattr(os, "stat", real_stat)
        page.write_text("second ${x}\n")
        stamp = real_stat(page).st_mtime + 5
        os.utime(page, (stamp, stamp))
        assert renderer.render("page.mako", x=3) == "second 3\n"
    finally:
        templates.compiled_template_dir.cache_clear()


def _tidied_line_by_line(text: str) -> str:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


_TIDY_ALPHABET = st.sampled_from(
    ["a", "}", " ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000"]
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(_TIDY_ALPHABET, max_size=40), st.text(max_size=40)))
def test_tidy_lines_matches_stripping_line_by_line(text):
    """The one-substitution tidy gives the rendered files the bytes the line-by-line one gave."""
    assert templates.tidy_lines(text) == _tidied_line_by_line(text)
