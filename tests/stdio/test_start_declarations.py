"""What an implementation declares besides its capabilities crosses `start` as the
Python attributes do: `notes` reach the results header, and `agent_id_pattern` is
carried when usable and refused at start, as a usage error naming it, when not."""

from __future__ import annotations

import re
from typing import Any

import pytest

from conformance.adapter import (
    MAX_AGENT_ID_PATTERN_LENGTH,
    SAFE_AGENT_ID_PATTERN,
    AgentIdPatternError,
    AgentSpec,
    agent_id_fits,
    agent_id_pattern_problem,
    declared_agent_id_pattern,
)
from conformance.errors import AdapterProtocolError
from conformance.runner.plugin import load_implementation
from conformance.stdio import StdioImplementation
from conformance.stdio import protocol as p

from .conftest import Start, faulty_argv
from .test_runner_labels import run_smoke


def test_the_start_reply_carries_notes_and_an_agent_id_pattern(start_faulty: Start) -> None:
    implementation = start_faulty("declares")
    assert implementation.notes == (
        "run() resets the runtime's chat (its 'new chat' call)",
        "retries off",
    )
    assert implementation.agent_id_pattern == "[a-z][a-z0-9-]{0,30}"


def test_a_start_reply_without_them_declares_none(start_faulty: Start) -> None:
    implementation = start_faulty("parrot")
    assert (implementation.notes, implementation.agent_id_pattern) == ((), None)


def test_a_cmd_adapters_notes_reach_the_results_header(pytester: pytest.Pytester) -> None:
    from conformance.verdicts import read_results

    run_smoke(pytester, "declares")
    header = read_results(pytester.path / "results.jsonl").header
    assert header["implementation_notes"] == [
        "run() resets the runtime's chat (its 'new chat' call)",
        "retries off",
    ]


def test_an_unusable_pattern_in_the_start_reply_stops_the_adapter() -> None:
    with pytest.raises(AdapterProtocolError, match=r"agent_id_pattern(.|\n)*not a Python regular"):
        StdioImplementation(faulty_argv("bad_id_pattern"))


def test_a_cmd_adapters_unusable_pattern_is_a_usage_error(pytester: pytest.Pytester) -> None:
    code, records, output = run_smoke(pytester, "bad_id_pattern")
    assert code == pytest.ExitCode.USAGE_ERROR
    assert "agent_id_pattern" in output and "the adapter did not start" in output
    assert records == []


class _Declaring:
    name = "declaring"
    capabilities: frozenset[Any] = frozenset()
    agent_id_pattern: Any = None

    async def create_agent(self, spec: AgentSpec) -> Any:
        raise NotImplementedError


UNCOMPILABLE = _Declaring()
UNCOMPILABLE.agent_id_pattern = "(billing"
LOWERCASE = _Declaring()
LOWERCASE.agent_id_pattern = "[a-z]+"


def test_a_python_implementations_unusable_pattern_is_a_usage_error() -> None:
    with pytest.raises(pytest.UsageError, match=r"agent_id_pattern .*not a Python regular"):
        load_implementation(f"{__name__}:UNCOMPILABLE")
    assert load_implementation(f"{__name__}:LOWERCASE") is LOWERCASE


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (7, "must be a string"),
        ("", "is empty"),
        ("(a|b" * 300, f"more than {MAX_AGENT_ID_PATTERN_LENGTH}"),
        ("[", "not a Python regular expression"),
        ("[a-z]{1,5}", "does not fully match 'billing', 'support'"),
        ("billing|support", "does not fully match 'agent'"),
        ("[A-Z][a-z]*", "'agent', 'billing', 'support'"),
    ],
)
def test_an_unusable_pattern_is_named_with_why(pattern: Any, why: str) -> None:
    problem = agent_id_pattern_problem(pattern)
    assert problem is not None and why in problem
    declaring = _Declaring()
    declaring.agent_id_pattern = pattern
    with pytest.raises(AgentIdPatternError, match=re.escape(why)):
        declared_agent_id_pattern(declaring)
    with pytest.raises(ValueError, match="agent_id_pattern"):
        p.StartResult.model_validate(
            {
                "implementation": {"name": "x", "language": "go"},
                "capabilities": [],
                "agent_id_pattern": pattern,
            }
        )


@pytest.mark.parametrize("pattern", [None, SAFE_AGENT_ID_PATTERN, "[a-z][a-z0-9_]*"])
def test_a_usable_pattern_is_declared_as_given(pattern: str | None) -> None:
    declaring = _Declaring()
    declaring.agent_id_pattern = pattern
    assert agent_id_pattern_problem(pattern) is None
    assert declared_agent_id_pattern(declaring) == pattern


@pytest.mark.parametrize(
    ("agent_id", "declared", "fits"),
    [
        ("billing", None, True),
        ("a", None, True),
        ("a" * 16, None, True),
        ("a" * 17, None, False),  # longer than the default allows
        ("a.", None, False),  # the id Hypothesis drew that a runtime refused
        ("a-", None, False),  # ends with neither a letter nor a digit
        ("7up", None, False),  # starts with a digit
        ("Billing", "[a-z][a-z0-9-]*", False),  # the default allows it, the runtime not
        ("bill_ing", "[a-z][a-z0-9-]*", False),
        ("bill-ing", "[a-z][a-z0-9-]*", True),
    ],
)
def test_an_id_fits_when_both_the_default_and_the_declared_pattern_match(
    agent_id: str, declared: str | None, fits: bool
) -> None:
    assert agent_id_fits(agent_id, declared) is fits
