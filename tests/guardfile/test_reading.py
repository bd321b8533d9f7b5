"""Reading guard files and templates: positions counted as the YAML reader counts them, sizes as documented."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError

from toolguards.guardfile.reading import MAX_BYTES, MAX_TEMPLATE_BYTES, NotUtf8, decode_utf8, position_of, size_limit

PIECES = ["a", "b: ", "- ", "[", "]", "{", "}", ", ", " ", "\t", "\n", "\r", "\r\n", "é", "中", "😀", "\ufeff", "\x85",
          "\u2028", "# c", '"q"', "'", "&x ", "*x"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_positions_are_those_of_the_yaml_reader(text: str) -> None:
    marks = []
    try:
        for token in YAML(typ="safe", pure=True).scan(text):
            marks += [token.start_mark, token.end_mark]
    except MarkedYAMLError as error:
        marks += [mark for mark in (error.context_mark, error.problem_mark) if mark is not None]
    for mark in marks:
        assert position_of(text, mark.index) == (mark.line + 1, mark.column + 1), (text, mark.index)


@pytest.mark.parametrize(
    ("raw", "position", "byte"),
    [
        (b"\xff", (1, 1), 0xFF),
        (b"ab\ncd\xe9", (2, 3), 0xE9),
        (b"a\r\nb\rc\xc3", (3, 2), 0xC3),
        ("中文\t😀".encode() + b"\xed\xa0\x80", (1, 5), 0xED),  # an encoded surrogate
        (b"\xef\xbb\xbfx\x80", (1, 2), 0x80),  # a byte-order mark takes no column
    ],
)
def test_not_utf8_is_positioned_at_its_first_bad_byte(raw, position, byte):
    with pytest.raises(NotUtf8) as caught:
        decode_utf8(raw)
    assert (caught.value.line, caught.value.column, caught.value.byte) == (*position, byte)
    assert str(caught.value) == f"the file is not UTF-8 text (byte 0x{byte:02x})"


def test_size_limits_as_printed():
    assert (size_limit(MAX_BYTES), size_limit(MAX_TEMPLATE_BYTES)) == ("1048576 bytes (1 MiB)", "65536 bytes (64 KiB)")
