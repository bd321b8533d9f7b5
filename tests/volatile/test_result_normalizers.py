"""Result normalizers (``resultNormalizers``): what they replace, where, what RE2 rejects at load, and that a hostile
pattern on a long result costs RE2's linear pass, never a backtracking engine's hours."""

from __future__ import annotations

import time

import pytest

from toolguards.volatile import Normalizer, Normalizers

PGID = Normalizer(r"Process Group PGID: \d+", "Process Group PGID: <pgid>")


def normalizers(*pairs: tuple[str, str] | str) -> Normalizers:
    items = tuple(Normalizer(p) if isinstance(p, str) else Normalizer(*p) for p in pairs)
    found = Normalizers(items)
    assert found.problems == ()
    return found


@pytest.mark.parametrize(
    ("pairs", "text", "expected"),
    [
        ([(PGID.pattern, PGID.replacement)], "Output: failed\nProcess Group PGID: 7363\n",
         "Output: failed\nProcess Group PGID: <pgid>\n"),
        ([r"\d+"], "a1b22c333", "abc"),  # the replacement defaults to nothing
        ([("x*", "-")], "abxxd", "ab-d"),  # a match of no characters replaces nothing
        ([(r"\b", "|")], "a b", "a b"),
        ([("(?m)^id=.*$", "id=?")], "id=1\nkeep\nid=2", "id=?\nkeep\nid=?"),
        (["^id=.*$"], "id=1\nkeep", "id=1\nkeep"),  # without (?m), ^ and $ are the string's ends
        ([("a", "b"), ("b", "c")], "a", "c"),  # in order, each on what the one before left
        ([("b", "c"), ("a", "b")], "a", "b"),
        ([(r"\d", r"\1")], "7", r"\1"),  # the replacement is literal text
        ([("é+", "e")], "caféé crème", "cafe crème"),
        ([("(?i)pgid", "P")], "PGID pgid", "P P"),
        ([r"\s+"], "a \t\n b", "ab"),
        (["nothing"], "no match here", "no match here"),
    ],
)
def test_what_a_normalizer_replaces(pairs, text, expected):
    assert normalizers(*pairs).text(text) == expected


def test_a_text_nothing_matched_is_returned_itself():
    text = "Output: ok"
    assert normalizers(PGID.pattern).text(text) is text


def test_every_string_of_a_result_but_not_its_keys():
    found = normalizers((r"\d+", "N"))
    result = {"llmContent": "PGID 12", "parts": [{"text": "t=3"}, 4, None, True], "7": "x", "nested": ("a1",)}
    assert found.apply(result) == {"llmContent": "PGID N", "parts": [{"text": "t=N"}, 4, None, True], "7": "x",
                                   "nested": ["aN"]}
    assert result["llmContent"] == "PGID 12"  # the host's value is never changed
    unchanged = {"a": ["b", {"c": "d"}]}
    assert found.apply(unchanged) is unchanged


def test_strings_nested_past_the_depth_limit_compare_as_they_are():
    from toolguards.volatile.normalizers import MAX_DEPTH

    deep: object = "1"
    for _ in range(MAX_DEPTH + 5):
        deep = [deep]
    assert normalizers(r"\d").apply(deep) is deep
    shallow: object = "1"
    for _ in range(MAX_DEPTH - 1):
        shallow = [shallow]
    assert normalizers(r"\d").apply(shallow) != shallow


def test_lone_surrogates_never_raise():
    text = "a\ud800b1"
    assert normalizers(r"\d").text(text) == "a\udced\udca0\udc80b"  # the surrogate's bytes, escaped
    assert normalizers("z").text(text) is text


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("(", "not an RE2 pattern: missing ): ("),
        (r"(a)\1", r"not an RE2 pattern: invalid escape sequence: \1"),
        ("(?=x)", "not an RE2 pattern: invalid perl operator: (?="),
        ("(?<=x)y", "not an RE2 pattern: invalid perl operator: (?<="),
        ("a{2,1}", "not an RE2 pattern: invalid repetition size: {2,1}"),
        ("a{1001}", "not an RE2 pattern: invalid repetition size: {1001}"),
        ("[z-a]", "not an RE2 pattern: invalid character class range: z-a"),
        ("x**", "not an RE2 pattern: bad repetition operator: **"),
        ("\ud800", "the pattern and the replacement must be valid Unicode text"),
    ],
)
def test_what_re2_rejects(pattern, message, capfd):
    found = Normalizers((Normalizer("ok"), Normalizer(pattern)))
    assert found.problems == ((1, message),)
    assert capfd.readouterr() == ("", "")  # RE2 logs nothing: a hook's stderr is one line of its own


HOSTILE = [
    r"(a+)+$",  # nested repetition: exponential for a backtracking engine
    r"(a|aa)+$",
    r"(a|a?)+b",
    r"(.*a){12}x",
    r"^(\w+\s?)*$",
    r"\w+:",  # plain, and still quadratic for Python's re: every start scans to the end
    r"(x+x+)+y",
]
SIZE = 256 * 1024
#: Generous on a loaded 2-core machine: RE2 takes milliseconds here, where Python's re takes hours (the nested
#: patterns) or minutes (``\w+:``, measured at 1.6 s on 20 KB, growing with the square of the length).
BOUND = 3.0


@pytest.mark.parametrize("pattern", HOSTILE)
def test_a_hostile_pattern_on_a_256_kb_result_is_linear(pattern):
    found = normalizers((pattern, "X"))
    text = "a" * (SIZE - 1) + "!"
    start = time.perf_counter()
    normalized = found.apply({"output": text, "lines": [text]})
    assert time.perf_counter() - start < BOUND
    assert normalized == {"output": text, "lines": [text]}  # none of them matches


def test_a_pattern_that_matches_every_character_of_a_256_kb_result_is_linear_too():
    # The worst case for the matching loop: one match, and one call into RE2, per character (about 2 µs each: 0.5 s
    # to 1.3 s here on 2 busy cores). A loop that copied the text per match would take minutes.
    found = normalizers((r"\d", ""))
    start = time.perf_counter()
    assert found.text("7" * SIZE) == ""
    assert time.perf_counter() - start < 4 * BOUND
