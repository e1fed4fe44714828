"""custom_code_to_op_key / canonical_op_key: the documented rewrite, and properties of it."""

from __future__ import annotations

import string

from helia_aot.air import AirOpType, canonical_op_key, custom_code_to_op_key
from hypothesis import given
from hypothesis import strategies as st


def test_documented_examples():
    assert custom_code_to_op_key("custom-noop") == "CUSTOM_NOOP"
    assert custom_code_to_op_key("my op") == "MY_OP"
    assert custom_code_to_op_key(" custom-noop ") == "_CUSTOM_NOOP_"
    assert custom_code_to_op_key("a.b") == "A.B"  # nothing else is rewritten


def test_canonical_key_of_enum_and_builtin_names():
    assert canonical_op_key(AirOpType.CONV_2D) == "CONV_2D"
    assert canonical_op_key("CONV_2D") == "CONV_2D"
    assert canonical_op_key("gain-clip") == "GAIN_CLIP"


ALPHABET = string.ascii_letters + string.digits + "-_ "


@given(st.text(alphabet=ALPHABET, max_size=30))
def test_key_is_uppercase_without_hyphens_or_spaces(code):
    key = custom_code_to_op_key(code)
    assert "-" not in key and " " not in key
    assert key == key.upper()
    assert len(key) == len(code)  # replacement before the trim: nothing is dropped


@given(st.text(alphabet=ALPHABET, max_size=30))
def test_key_is_idempotent_and_canonical(code):
    key = custom_code_to_op_key(code)
    assert custom_code_to_op_key(key) == key
    assert canonical_op_key(code) == key


@given(st.text(max_size=30))
def test_other_characters_are_kept(code):
    key = custom_code_to_op_key(code)
    expected = code.replace("-", "_").replace(" ", "_").strip().upper()
    assert key == expected
