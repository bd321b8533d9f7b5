"""Argument paths (``ignoreArguments``): their syntax, its mistakes, and what a path leaves out of the arguments."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolguards.volatile import ArgumentPaths, PathError, format_path, parse_path


@pytest.mark.parametrize(
    ("text", "segments"),
    [
        ("task_progress", ("task_progress",)),
        ("options.requestId", ("options", "requestId")),
        ("edits.*.id", ("edits", None, "id")),
        ("*", (None,)),
        (r"\*", ("*",)),
        (r"a\.b", ("a.b",)),
        (r"a\\b", ("a\\b",)),
        (r"a\\.b", ("a\\", "b")),
        ("a*", ("a*",)),  # a star inside a key is literal
        (r"x.\*.*", ("x", "*", None)),
        ("0.1", ("0", "1")),
        ("名前.値", ("名前", "値")),
    ],
)
def test_paths_parse_into_segments(text, segments):
    assert parse_path(text) == segments
    assert parse_path(format_path(segments)) == segments


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "an argument path must not be empty"),
        ("a..b", "invalid path `a..b`: empty segment at character 3"),
        (".a", "invalid path `.a`: empty segment at character 1"),
        ("a.", "invalid path `a.`: empty segment at character 2"),
        (".", "invalid path `.`: empty segment at character 1"),
        ("a\\", "invalid path `a\\`: lone backslash at character 2"),
        (r"a\x", r"invalid path `a\x`: unknown escape `\x` at character 2"),
        (r"options.\id", r"invalid path `options.\id`: unknown escape `\i` at character 9"),
    ],
)
def test_mistakes_name_the_character(text, message):
    with pytest.raises(PathError) as raised:
        parse_path(text)
    assert str(raised.value) == message
    assert ArgumentPaths((text,)).problems == ((0, message),)


KEYS = st.text(st.sampled_from("ab.*\\é"), min_size=1, max_size=4)


@given(st.lists(st.one_of(st.none(), KEYS), min_size=1, max_size=4))
def test_format_is_the_inverse_of_parse(segments):
    assert parse_path(format_path(segments)) == tuple(segments)


ARGUMENTS = {
    "command": "pytest -q",
    "task_progress": "- [x] read\n- [ ] fix",
    "options": {"requestId": "r-81", "timeout": 30},
    "edits": [{"id": 1, "text": "a"}, {"id": 2, "text": "b"}],
    "a.b": 1,
    "*": 2,
    "list": [10, 11, 12],
}


@pytest.mark.parametrize(
    ("paths", "expected"),
    [
        (["task_progress"], {k: v for k, v in ARGUMENTS.items() if k != "task_progress"}),
        (["options.requestId"], {**ARGUMENTS, "options": {"timeout": 30}}),
        (["edits.*.id"], {**ARGUMENTS, "edits": [{"text": "a"}, {"text": "b"}]}),
        (["edits.1"], {**ARGUMENTS, "edits": [{"id": 1, "text": "a"}]}),
        (["list.0", "list.2"], {**ARGUMENTS, "list": [11]}),  # indexes are the original ones
        (["list.*"], {**ARGUMENTS, "list": []}),
        ([r"a\.b"], {k: v for k, v in ARGUMENTS.items() if k != "a.b"}),
        ([r"\*"], {k: v for k, v in ARGUMENTS.items() if k != "*"}),
        (["*.timeout", "options.requestId"], {**ARGUMENTS, "options": {}}),
        (["*"], {}),
    ],
)
def test_what_a_path_leaves_out(paths, expected):
    arguments = copy.deepcopy(ARGUMENTS)
    assert ArgumentPaths(tuple(paths)).prune(arguments) == expected
    assert arguments == ARGUMENTS  # the host's value is never changed


@pytest.mark.parametrize(
    ("paths", "value"),
    [
        (["missing"], ARGUMENTS),
        (["command.x"], ARGUMENTS),  # a string has no keys
        (["list.01"], ARGUMENTS),  # a leading zero is a key, never an index
        (["list.3"], ARGUMENTS),
        (["task_progress"], "raw text of malformed JSON"),
        (["0"], {0: "a key that is not a string"}),
        (["x"], None),
    ],
)
def test_a_path_that_matches_nothing_returns_the_value_itself(paths, value):
    assert ArgumentPaths(tuple(paths)).prune(value) is value


def test_only_the_containers_on_the_way_are_copied():
    arguments = copy.deepcopy(ARGUMENTS)
    pruned = ArgumentPaths(("options.requestId",)).prune(arguments)
    assert pruned["edits"] is arguments["edits"]
    assert pruned["options"] is not arguments["options"]


def test_tuples_and_other_mappings_are_pruned_as_arrays_and_objects():
    from types import MappingProxyType

    value = MappingProxyType({"keep": (1, {"id": 2, "x": 3}), "id": 4})
    assert ArgumentPaths(("id", "keep.*.id")).prune(value) == {"keep": [1, {"x": 3}]}


def test_a_star_matches_keys_that_are_not_strings():
    assert ArgumentPaths(("*",)).prune({1: "a", "b": 2}) == {}


def test_no_paths_is_false_and_never_prunes():
    paths = ArgumentPaths()
    assert not paths
    assert paths.prune(ARGUMENTS) is ARGUMENTS
