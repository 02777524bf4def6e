"""The wire: a strict, recording, scripted fake provider that real clients talk to.

provider = ScriptedProvider([text("Booked.")])
with InProcess(provider):          # or: with LoopbackServer(provider):
    client = openai.AsyncOpenAI(base_url=provider.base_url, api_key="test")
    ...
provider.verify()                  # strict: leftovers, exhaustion, invariants
provider.wire.last.user_texts()    # what the model was shown
provider.service("booking", held=True)  # the call_service tool's call, held mid-run
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._minted import MintedValues
from ._strict_json import MAX_JSON_DEPTH, JsonRefusal
from .dialects import WireFormatError
from .ir import AssistantReply, Dialect, Message, RequestIR, ToolCall, ToolSpec, Usage
from .provider import DEFAULT_MAX_BODY, Script, ScriptedProvider, WireVerificationError
from .script import (
    Call,
    Fault,
    Hold,
    HoldTimeoutError,
    Match,
    React,
    ScriptFile,
    ScriptFileError,
    ScriptSpec,
    StreamError,
    Text,
    ToolCalls,
    load_script_file,
    parallel_calls,
    text,
    text_blocks,
    tool_call,
)
from .service import SERVICE_FAILURE, ServiceGate
from .wirelog import (
    Exchange,
    ExchangeRecord,
    Finding,
    LogFileError,
    StepRef,
    WireLog,
    read_log_file,
)

if TYPE_CHECKING:
    from .in_process import InProcess, ProviderTransport, httpx2_is_aliased
    from .loopback import LoopbackServer, ProviderApp

# The transports pull in respx/httpx and uvicorn; import them on first use so that
# `python -m conformance.wire serve` and users of one transport skip the other's cost.
_TRANSPORTS = {
    "InProcess": ".in_process",
    "ProviderTransport": ".in_process",
    "httpx2_is_aliased": ".in_process",
    "LoopbackServer": ".loopback",
    "ProviderApp": ".loopback",
}


def __getattr__(name: str) -> Any:
    if name in _TRANSPORTS:
        return getattr(import_module(_TRANSPORTS[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_MAX_BODY",
    "MAX_JSON_DEPTH",
    "SERVICE_FAILURE",
    "AssistantReply",
    "Call",
    "Dialect",
    "Exchange",
    "ExchangeRecord",
    "Fault",
    "Finding",
    "Hold",
    "HoldTimeoutError",
    "InProcess",
    "JsonRefusal",
    "LogFileError",
    "LoopbackServer",
    "Match",
    "Message",
    "MintedValues",
    "ProviderApp",
    "ProviderTransport",
    "React",
    "RequestIR",
    "Script",
    "ScriptFile",
    "ScriptFileError",
    "ScriptSpec",
    "ScriptedProvider",
    "ServiceGate",
    "StepRef",
    "StreamError",
    "Text",
    "ToolCall",
    "ToolCalls",
    "ToolSpec",
    "Usage",
    "WireFormatError",
    "WireLog",
    "WireVerificationError",
    "httpx2_is_aliased",
    "load_script_file",
    "parallel_calls",
    "read_log_file",
    "text",
    "text_blocks",
    "tool_call",
]
