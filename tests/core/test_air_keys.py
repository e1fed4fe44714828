"""custom_code_to_op_key / canonical_op_key: the product's documented rules, and properties of them."""

from __future__ import annotations

import string

import pytest
from helia_aot.air import AirOpType, canonical_op_key, custom_code_to_op_key
from helia_aot.errors import ConfigValueError, UnsupportedModelError
from hypothesis import given
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("code", "key"),
    [
        ("custom-noop", "CUSTOM_NOOP"),
        ("my op", "MY_OP"),
        (" custom-noop ", "_CUSTOM_NOOP_"),
        (b"custom-noop", "CUSTOM_NOOP"),
        (bytearray(b"ab-c"), "AB_C"),
        ("a--b", "A__B"),
        ("1abc", "1ABC"),
        ("Foo_Bar", "FOO_BAR"),
    ],
)
def test_documented_examples(code, key):
    assert custom_code_to_op_key(code) == key


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (b"\xff", "is not UTF-8 text"),
        ("a.b", "character '.'"),
        ("a\tb", "character '\\\\t'"),
        ("a\nb", "character '\\\\n'"),
        ("a\0b", "character '\\\\x00'"),
        ("caf\u00e9", "character '\u00e9'"),
        ("", "no letter or digit"),
        ("   ", "no letter or digit"),
        ("-_ ", "no letter or digit"),
    ],
)
def test_codes_that_cannot_be_keys_raise(code, reason):
    with pytest.raises(UnsupportedModelError, match=reason) as info:
        custom_code_to_op_key(code)
    error = info.value
    assert isinstance(error, ConfigValueError) and isinstance(error, ValueError)
    assert error.exit_code == 1
    assert str(error).endswith(f" (hint: {error.hint})")


def test_canonical_key_of_enum_and_builtin_names():
    assert canonical_op_key(AirOpType.CONV_2D) == "CONV_2D"
    assert canonical_op_key("CONV_2D") == "CONV_2D"
    assert canonical_op_key("conv_2d") == "CONV_2D"
    assert canonical_op_key("gain-clip") == "GAIN_CLIP"
    assert canonical_op_key("a.b") == "A.B"  # not a custom code: only upper-cased, as the product does


ALPHABET = string.ascii_letters + string.digits + "-_ "
VALID = st.text(alphabet=ALPHABET, max_size=30).filter(lambda s: any(c.isalnum() for c in s))


@given(VALID)
def test_key_is_uppercase_without_hyphens_or_spaces(code):
    key = custom_code_to_op_key(code)
    assert "-" not in key and " " not in key
    assert key == key.upper()
    assert len(key) == len(code)  # replacement before the trim: nothing is dropped


@given(VALID)
def test_key_is_idempotent_and_canonical(code):
    key = custom_code_to_op_key(code)
    assert custom_code_to_op_key(key) == key
    assert canonical_op_key(code) == key


@given(VALID)
def test_bytes_give_the_same_key_as_text(code):
    assert custom_code_to_op_key(code.encode()) == custom_code_to_op_key(code)
    assert custom_code_to_op_key(bytearray(code.encode())) == custom_code_to_op_key(code)


@given(st.text(max_size=30))
def test_any_text_either_becomes_the_documented_key_or_raises(code):
    valid = all(c in ALPHABET for c in code) and any(c.isalnum() for c in code)
    if valid:
        assert custom_code_to_op_key(code) == code.replace("-", "_").replace(" ", "_").strip().upper()
    else:
        with pytest.raises(UnsupportedModelError):
            custom_code_to_op_key(code)


@given(st.binary(max_size=20))
def test_any_bytes_either_decode_to_the_text_key_or_raise(raw):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        with pytest.raises(UnsupportedModelError, match="not UTF-8"):
            custom_code_to_op_key(raw)
        return
    try:
        expected = custom_code_to_op_key(text)
    except UnsupportedModelError:
        with pytest.raises(UnsupportedModelError):
            custom_code_to_op_key(raw)
        return
    assert custom_code_to_op_key(raw) == expected
