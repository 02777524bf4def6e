"""The Letta Code adapter's reading of the CLI's lines, without a process.

What `conformance.frameworks.letta_code` makes of each stream-json line, as the SDK's
`transformMessage` does (a malformed line of a known type is a typed error, noise is
skipped), the CLI flags a session gets, and what the column declares. The CLI itself is
driven in test_letta_code_adapter.py. Skipped (not passed) when Letta Code is not
installed, since importing the adapter finds its bundle.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from conformance.adapter import (
    ApprovalRequestEvent,
    AssistantEvent,
    Capability,
    QueueEvent,
    ResultEvent,
    SessionImplementation,
    SessionOptions,
    ToolCallEvent,
    ToolResultEvent,
)

pytest.importorskip(
    "letta_code", reason="Letta Code is not installed (pip install 'turnlaw[letta]')"
)

from conformance.frameworks.letta_code import implementation
from conformance.frameworks.letta_code._letta_backend import session_flags
from conformance.frameworks.letta_code._letta_events import session_event, stored_message
from conformance.frameworks.letta_code._letta_lines import (
    LettaLineError,
    QueueLine,
    ResultLine,
    parse_cli_line,
)


def line(**fields: Any) -> Any:
    parsed = parse_cli_line(json.dumps(fields))
    assert parsed is not None
    return parsed


def test_a_known_line_without_its_fields_is_a_typed_error_and_noise_is_skipped() -> None:
    with pytest.raises(LettaLineError, match="subtype") as raised:
        parse_cli_line('{"type": "result", "result": "x"}')
    assert '"result": "x"' in raised.value.line, "the unreadable line is kept whole"
    assert parse_cli_line("Loading…") is None
    assert parse_cli_line("[1, 2]") is None
    assert isinstance(line(type="queue_item_enqueued", item_id="q-1"), QueueLine)
    assert isinstance(line(type="result", subtype="success", extra_field=1), ResultLine)


def test_message_lines_become_the_sdks_events() -> None:
    assistant = session_event(
        line(
            type="message",
            message_type="assistant_message",
            content=[{"type": "text", "text": "Booked "}, {"type": "text", "text": "for two."}],
            run_id="local-run-3",
        )
    )
    assert assistant == AssistantEvent(text="Booked for two.", run_id="local-run-3")
    call = session_event(
        line(
            type="message",
            message_type="tool_call_message",
            tool_call={"name": "echo", "tool_call_id": "c1", "arguments": '{"text": "hi"}'},
        )
    )
    assert call == ToolCallEvent(tool_call_id="c1", tool_name="echo", arguments={"text": "hi"})
    broken = session_event(
        line(
            type="message",
            message_type="tool_call_message",
            tool_call={"name": "echo", "tool_call_id": "c2", "arguments": "{nope"},
        )
    )
    assert isinstance(broken, ToolCallEvent) and broken.arguments == {"raw": "{nope"}
    returned = session_event(
        line(
            type="message",
            message_type="tool_return_message",
            tool_call_id="c1",
            status="error",
            tool_return="denied",
        )
    )
    assert returned == ToolResultEvent(tool_call_id="c1", content="denied", is_error=True)
    for dropped in ("usage_statistics", "stop_reason"):
        assert session_event(line(type="message", message_type=dropped, run_id="r")) is None


def test_results_keep_what_the_cli_wrote_and_nothing_more() -> None:
    empty = session_event(line(type="result", subtype="success", result="ok", run_ids=[]))
    assert empty == ResultEvent(success=True, text="ok", run_ids=())
    absent = session_event(line(type="result", subtype="interrupted", result=""))
    assert absent == ResultEvent(success=False, text="", run_ids=None)
    failed = session_event(line(type="result", subtype="error", stop_reason="error"))
    assert isinstance(failed, ResultEvent) and failed.stop_reason == "error"


def test_permission_requests_and_queue_lines_are_events() -> None:
    asked = session_event(
        line(
            type="control_request",
            request_id="perm-c9",
            request={
                "subtype": "can_use_tool",
                "tool_name": "echo",
                "input": {"text": "x"},
                "tool_call_id": "c9",
            },
        )
    )
    assert asked == ApprovalRequestEvent(
        tool_call_id="c9", tool_name="echo", arguments={"text": "x"}
    )
    batch = session_event(line(type="queue_batch_dequeued", item_ids=["q-2", "q-3"]))
    assert batch == QueueEvent(action="dequeued", item_ids=("q-2", "q-3"))


def test_listed_messages_take_the_suites_roles() -> None:
    call = stored_message(
        {
            "id": "m2",
            "message_type": "approval_request_message",
            "tool_call": {"tool_call_id": "c1", "name": "echo", "arguments": '{"text":"a"}'},
        }
    )
    assert (call.role, call.tool_call_id, call.tool_name) == ("tool_call", "c1", "echo")
    user = stored_message(
        {"message_type": "user_message", "content": [{"type": "text", "text": "hi"}]}
    )
    assert (user.role, user.text) == ("user", "hi")
    assert stored_message({"message_type": "system_message", "content": "x"}).role == "other"


def test_session_flags_offer_only_the_sessions_tools_and_ask_only_for_approvals() -> None:
    plain = session_flags(SessionOptions())
    assert plain[plain.index("--tools") + 1] == "", "an empty --tools offers no built-in tool"
    assert "--permission-mode" not in plain
    asking = session_flags(
        SessionOptions(tools=("echo", "whoami"), needs_approval=("echo",), model="m2")
    )
    assert asking[asking.index("--tools") + 1] == "echo,whoami"
    assert asking[asking.index("--permission-mode") + 1] == "standard"
    assert asking[asking.index("--allowedTools") + 1] == "whoami"
    assert asking[asking.index("-m") + 1] == "openai-compatible/m2"


def test_the_package_does_not_import_letta_until_the_adapter_is_loaded() -> None:
    probe = "import sys, conformance.frameworks; print('letta_code' in sys.modules)"
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert shown.strip() == "False"


def test_the_column_names_the_release_and_declares_only_what_works() -> None:
    from importlib.metadata import version

    assert (implementation.name, implementation.version) == ("letta-code", version("letta"))
    assert isinstance(implementation, SessionImplementation)
    assert Capability.SESSIONS in implementation.capabilities
    assert Capability.SESSION_QUEUE_REMOVE not in implementation.capabilities
