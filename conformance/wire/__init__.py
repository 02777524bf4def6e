"""The wire: a strict, recording, scripted fake provider that real clients talk to.

provider = ScriptedProvider([text("Booked.")])
with InProcess(provider):          # or: with LoopbackServer(provider):
    client = openai.AsyncOpenAI(base_url=provider.base_url, api_key="test")
    ...
provider.verify()                  # strict: leftovers, exhaustion, invariants
provider.wire.last.user_texts()    # what the model was shown
"""

from .dialects import WireFormatError
from .in_process import InProcess, ProviderTransport, httpx2_is_aliased
from .ir import AssistantReply, Dialect, Message, RequestIR, ToolCall, ToolSpec, Usage
from .loopback import LoopbackServer, ProviderApp
from .provider import Script, ScriptedProvider, WireVerificationError
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
    tool_call,
)
from .wirelog import Exchange, Finding, StepRef, WireLog

__all__ = [
    "AssistantReply",
    "Call",
    "Dialect",
    "Exchange",
    "Fault",
    "Finding",
    "Hold",
    "HoldTimeoutError",
    "InProcess",
    "LoopbackServer",
    "Match",
    "Message",
    "ProviderApp",
    "ProviderTransport",
    "React",
    "RequestIR",
    "Script",
    "ScriptFile",
    "ScriptFileError",
    "ScriptSpec",
    "ScriptedProvider",
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
    "text",
    "tool_call",
]
