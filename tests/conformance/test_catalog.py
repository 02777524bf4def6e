"""conformance.catalog: the fixed tools as data, and the whoami report every adapter sends.

The laws read the model's view of these on the wire, so the exact bytes matter: the
reference sends `parameters_schema()` as given and every adapter's whoami result is
`WhoamiReport.as_text()` (or the framework's serialization of `model_dump()`)."""

from __future__ import annotations

import json
from typing import get_args

import pytest

from conformance.adapter import AgentSpec, IdentitySpec
from conformance.catalog import (
    ASK_PERSON,
    CALL_SERVICE,
    ECHO,
    TOOLS,
    WHOAMI,
    ToolName,
    WhoamiReport,
    service_url,
)


def test_the_catalog_holds_exactly_the_tool_names_an_agent_spec_accepts() -> None:
    assert (
        tuple(TOOLS)
        == get_args(ToolName)
        == (
            "echo",
            "whoami",
            "ask_person",
            "call_service",
        )
    )
    assert AgentSpec(base_url="http://x/v1", api_key="k", tools=tuple(TOOLS)).tools == tuple(TOOLS)


def test_the_plain_schemas_are_objects_of_optional_strings() -> None:
    assert ECHO.parameters_schema() == {
        "type": "object",
        "properties": {"text": {"type": "string"}},
    }
    assert list(ECHO.parameters_schema()) == ["type", "properties"], "key order is on the wire"
    assert WHOAMI.parameters_schema() == {"type": "object"}
    assert ASK_PERSON.parameters_schema()["properties"] == {"question": {"type": "string"}}


def test_defaults_are_read_by_name_and_an_unknown_one_is_an_error() -> None:
    assert ECHO.default("text") == ""
    assert ASK_PERSON.default("question") == "May I?"
    with pytest.raises(KeyError, match="whoami takes no parameter 'text'"):
        WHOAMI.default("text")


def test_a_named_identity_is_reported_without_its_unset_fields() -> None:
    told = WhoamiReport.told(IdentitySpec(conversation_id="c-1", principal="ana"), "s-1")
    assert told.as_text() == (
        '{"identity": {"conversation_id": "c-1", "principal": "ana"}, "session_id": "s-1"}'
    )
    assert WhoamiReport.told({"conversation_id": "c-2"}).model_dump() == {
        "identity": {"conversation_id": "c-2"},
        "session_id": None,
    }


def test_no_identity_is_reported_as_null() -> None:
    assert json.loads(WhoamiReport.told(None).as_text()) == {"identity": None, "session_id": None}
    assert WhoamiReport() == WhoamiReport.told(None)


def test_call_service_calls_the_fake_under_the_agents_base_url() -> None:
    assert CALL_SERVICE.parameters_schema()["properties"] == {"key": {"type": "string"}}
    assert service_url("http://127.0.0.1:9/turnlaw/3/v1/", "a b/c") == (
        "http://127.0.0.1:9/turnlaw/3/v1/_turnlaw/tools/a%20b%2Fc"
    )
