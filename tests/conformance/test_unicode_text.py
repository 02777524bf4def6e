"""No strategy of the project makes Hypothesis build its utf-8 codec table.

On a fresh checkout that table costs seconds (see `conformance/_unicode_text.py`):
`st.text()` without an alphabet, `st.from_regex` without one and
`st.characters(codec=...)` (but "ascii", which Hypothesis answers from a code point
bound) all build it. The check reads the source, so it also sees strategies built
inside `@st.composite` functions, where no import-time inspection reaches.
"""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis.strategies._internal.lazy import unwrap_strategies

from conformance._unicode_text import UNICODE_CHARACTERS

ROOT = Path(__file__).parents[2]
TREES = ("conformance", "reference_impl", "tests", "benchmarks")
STRATEGY_MODULES = {"st", "strategies"}
UNICODE_SCALAR_VALUES = ((0, 0xD7FF), (0xE000, 0x10FFFF))


def builds_codec_table(call: ast.Call) -> str | None:
    """Why this call needs the codec table (None: it does not)."""
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in STRATEGY_MODULES
    ):
        return None
    keywords = {keyword.arg: keyword.value for keyword in call.keywords}
    if func.attr == "text" and not call.args and "alphabet" not in keywords:
        return "st.text() without an alphabet: use conformance._unicode_text.unicode_text"
    if func.attr == "from_regex" and "alphabet" not in keywords and len(call.args) < 2:
        return "st.from_regex without alphabet="
    codec = keywords.get("codec")
    allowed_codec = isinstance(codec, ast.Constant) and codec.value in (None, "ascii")
    if func.attr == "characters" and codec is not None and not allowed_codec:
        return "st.characters(codec=...): use UNICODE_CHARACTERS for utf-8"
    return None


def offenders(source: str, name: str) -> list[str]:
    return [
        f"{name}:{node.lineno}: {why}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and (why := builds_codec_table(node)) is not None
    ]


def test_no_strategy_builds_the_utf8_codec_table() -> None:
    found = [
        problem
        for tree in TREES
        for path in sorted((ROOT / tree).rglob("*.py"))
        for problem in offenders(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert not found, "\n".join(found)


def test_the_check_sees_each_way_of_asking_for_the_table() -> None:
    """Its rogues: each form it exists to catch is caught, each allowed form is not."""
    caught = [
        "st.text()",
        "st.text(max_size=4)",
        "st.from_regex(r'[a-z]+', fullmatch=True)",
        "st.characters(codec='utf-8')",
        "strategies.text(min_size=1)",
    ]
    allowed = [
        "st.text(UNICODE_CHARACTERS, max_size=4)",
        "st.text(alphabet='abc')",
        "st.from_regex(r'[a-z]+', fullmatch=True, alphabet='abc')",
        "st.characters(codec='ascii')",
        "st.characters(exclude_categories=('Cs',))",
        "text(max_size=3)",  # not a strategy module's
    ]
    assert [len(offenders(line, "x")) for line in caught] == [1] * len(caught)
    assert [offenders(line, "x") for line in allowed] == [[]] * len(allowed)


def test_unicode_characters_are_what_utf8_can_encode() -> None:
    """The replacement draws from exactly st.text()'s default alphabet: every Unicode
    scalar value, i.e. every code point but the surrogates (which is the set utf-8
    encodes). Hypothesis orders and shrinks by these intervals, so draws are the same."""
    unwrapped = unwrap_strategies(UNICODE_CHARACTERS)  # type: ignore[no-untyped-call]
    assert unwrapped.intervals.intervals == UNICODE_SCALAR_VALUES
