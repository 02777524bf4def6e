"""The expectation-manifest loader against generated manifests: it accepts a manifest only
when every entry names a law the registry knows and an outcome a law may be expected to
have (FAIL, NOT_APPLICABLE), and refuses everything else with `ExpectationsError` naming
the entry, in one line. Anything else it raises is a bug.

An accepted entry expecting PASS, XPASS, XFAIL, ERROR or TIMEOUT would let a manifest
turn a red run green: that is counted as a false green.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import conformance.runner.plugin  # noqa: F401  (kept imported across nested runs)
import reference_impl.adapter  # noqa: F401
from conformance.registry import load_laws
from conformance.verdicts import EXPECTABLE, ExpectationsError, Outcome, load_expectations
from tests.hostile.budget import TALLY, fuzz_settings, judged
from tests.suite_args import PLUGIN_ARGS, nested_suite

TOML_TARGET = "runner.expectations (generated TOML)"
BYTES_TARGET = "runner.expectations (bytes, edited manifests)"

LAW_IDS = sorted(load_laws())
TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
"""TOML text holds Unicode scalar values only; the bytes target covers the rest."""
SCALARS = (
    TEXT
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=True, allow_infinity=True)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
OUTCOMES = st.sampled_from([o.value for o in Outcome]) | st.sampled_from(["fail", "N/A", ""])
ENTRY = st.fixed_dictionaries(
    {},
    optional={
        "outcome": OUTCOMES | VALUES,
        "reason": TEXT | VALUES,
        "link": TEXT | VALUES,
        "note": VALUES,
    },
)
ALMOST = st.fixed_dictionaries(
    {
        "outcome": st.sampled_from(["FAIL", "NOT_APPLICABLE"]) | OUTCOMES,
        "reason": TEXT.filter(bool),
    },
    optional={"link": TEXT},
)
"""Mostly valid entries, so acceptance is exercised too, not only refusal."""
ANY_MANIFEST = st.fixed_dictionaries(
    {},
    optional={
        "law": st.dictionaries(
            st.sampled_from(LAW_IDS) | TEXT, ALMOST | ALMOST | ENTRY | VALUES, max_size=4
        )
        | VALUES,
        "framework": st.fixed_dictionaries(
            {},
            optional={
                "package": st.sampled_from(["pytest", "no-such-dist-turnlaw", ""]) | TEXT,
                "version": TEXT | VALUES,
            },
        )
        | VALUES,
        "laws": VALUES,
    },
)


MANIFEST = ANY_MANIFEST | st.fixed_dictionaries(
    {"law": st.dictionaries(st.sampled_from(LAW_IDS), ALMOST, max_size=4)}
)
"""Anything, or a manifest of known laws with mostly valid entries."""


def toml_value(value: Any) -> str:
    """A value as TOML (inline tables and arrays), for the generated manifests."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{toml_string(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_string(text: str) -> str:
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def toml_document(data: dict[str, Any], law_as_tables: bool) -> str:
    """Top-level keys as `key = value`; the law table, when it is one, optionally as
    `[law."<id>"]` sections, the way people write manifests."""
    lines = []
    law = data.get("law")
    for key, value in data.items():
        if key == "law" and law_as_tables and isinstance(law, dict):
            continue
        lines.append(f"{toml_string(key)} = {toml_value(value)}")
    if law_as_tables and isinstance(law, dict):
        for law_id, entry in law.items():
            if isinstance(entry, dict):
                lines.append(f"[law.{toml_string(law_id)}]")
                lines += [f"{toml_string(k)} = {toml_value(v)}" for k, v in entry.items()]
            else:
                lines.append(f"law.{toml_string(law_id)} = {toml_value(entry)}")
    return "\n".join(lines) + "\n"


def judge(target: str, path: Path) -> dict[str, Any] | None:
    """Load one manifest: its entries, or None when refused. An accepted one must hold
    only entries a law may have."""
    accepted: dict[str, Any] | None = None
    refusal: str | None = None
    with judged(target, typed=(ExpectationsError,)):
        try:
            accepted = load_expectations(path)
        except ExpectationsError as error:
            refusal = str(error)
            raise
    if accepted is None:
        assert refusal is not None and "\n" not in refusal, f"not one line: {refusal}"
        return None
    wrong = {
        law: e
        for law, e in accepted.items()
        if e.outcome not in EXPECTABLE or law not in LAW_IDS or not e.reason
    }
    if wrong:
        TALLY.add(target, "false_green")
        raise AssertionError(f"accepted entries no manifest may hold: {wrong}")
    return accepted


@fuzz_settings()
@given(data=MANIFEST, law_as_tables=st.booleans())
def test_generated_manifests_are_accepted_only_when_every_entry_is_one_a_law_may_have(
    tmp_path: Path, data: dict[str, Any], law_as_tables: bool
) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text(toml_document(data, law_as_tables), encoding="utf-8")
    accepted = judge(TOML_TARGET, path)
    entries = data.get("law")
    meaningless = isinstance(entries, dict) and any(
        isinstance(e, dict) and e.get("outcome") not in ("FAIL", "NOT_APPLICABLE")
        for e in entries.values()
    )
    if meaningless and accepted is not None:  # the file must be refused whole
        TALLY.add(TOML_TARGET, "false_green")
        raise AssertionError(f"accepted a manifest with an entry {entries}")


VALID = (
    b'[law."run.no-history"]\noutcome = "FAIL"\nreason = "carries the last conversation"\n'
    b'link = "https://example.org/1"\n\n'
    b'[law."pending.refuses-new-message"]\noutcome = "NOT_APPLICABLE"\nreason = "no pause"\n'
)


@st.composite
def edited(draw: st.DrawFn) -> bytes:
    """A valid manifest with a few byte-level edits, or bytes from nowhere."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=200))
    data = bytearray(VALID)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        match draw(st.sampled_from(["flip", "insert", "delete", "truncate"])):
            case "flip" if at < len(data):
                data[at] ^= draw(st.integers(1, 255))
            case "insert":
                data[at:at] = draw(st.binary(min_size=1, max_size=8))
            case "delete":
                del data[at : at + draw(st.integers(1, 8))]
            case "truncate":
                del data[at:]
    return bytes(data)


@fuzz_settings()
@given(data=edited())
def test_edited_and_random_bytes_are_refused_with_a_typed_error(
    tmp_path: Path, data: bytes
) -> None:
    path = tmp_path / "manifest.toml"
    path.write_bytes(data)
    judge(BYTES_TARGET, path)


def test_the_valid_base_manifest_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "manifest.toml"
    path.write_bytes(VALID)
    loaded = load_expectations(path)
    assert {law: e.outcome.value for law, e in loaded.items()} == {
        "run.no-history": "FAIL",
        "pending.refuses-new-message": "NOT_APPLICABLE",
    }
    assert json.loads(json.dumps(loaded["run.no-history"].model_dump(mode="json")))


DEEP = 2000
"""Levels of nesting: far past what tomllib's recursion reaches (about 500)."""


@pytest.mark.parametrize(
    "text",
    [
        "x = " + "[" * DEEP + "]" * DEEP + "\n",
        '[law."run.no-history"]\noutcome = "FAIL"\nreason = ' + "[" * DEEP + "]" * DEEP,
        "x = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n",
    ],
    ids=["arrays", "an-entry's-value", "inline-tables"],
)
def test_a_manifest_nested_past_the_recursion_limit_is_a_named_error(
    tmp_path: Path, text: str
) -> None:
    """Before: tomllib's RecursionError escaped, and the run ended in INTERNALERROR."""
    path = tmp_path / "manifest.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ExpectationsError, match="nested too deep to read") as raised:
        load_expectations(path)
    assert str(raised.value).startswith(f"--expectations {path}: ")


def test_a_run_with_such_a_manifest_stops_as_a_usage_error(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    path = tmp_path / "manifest.toml"
    path.write_text("x = " + "[" * DEEP + "]" * DEEP + "\n", encoding="utf-8")
    run = nested_suite(pytester).runpytest(
        *PLUGIN_ARGS, "--expectations", str(path), "--pyargs", "conformance.laws.test_smoke"
    )
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    output = run.stdout.str() + run.stderr.str()
    assert "nested too deep to read" in output and "INTERNALERROR" not in output, output
