"""The canonical wire recordings of the seed's walkthroughs, made by the reference runtime.

Each scenario drives `reference_impl` through its conformance adapter against the fake
provider served over real HTTP (`LoopbackServer`), and the whole wire log is the snapshot:
`recordings/reference/<scenario>/<dialect>.json`. Every scenario also asserts its own key
facts, so a run means something before any recording exists, and a regenerated recording
cannot quietly bless a broken runtime.

    pytest tests/snapshots --snapshot-update    # (re)write the recordings
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import pytest
from syrupy.assertion import SnapshotAssertion

from conformance.adapter import (
    AgentSpec,
    AgentUnderTest,
    BackendSpec,
    BackendUnderTest,
    HostSpec,
    IdentitySpec,
    RefusalKind,
    Refused,
    RunOutcome,
)
from conformance.recording import (
    RECORDINGS_DIR,
    WireRecordingExtension,
    recording_path,
    unexpected_recordings,
    write_recording,
)
from conformance.wire import Dialect, LoopbackServer, RequestIR, ScriptedProvider, text, tool_call
from reference_impl.adapter import implementation

from ._hosted_scenarios import HOSTED, HostedScenario, RunningHost
from ._session_scenarios import SESSIONS, SessionScenario

# The snapshot name is `<scenario>.<dialect>`, which syrupy cannot relate to the test's
# name; that is by design (the file is named by the parameters), so the warning is noise.
pytestmark = pytest.mark.filterwarnings(r"ignore:\s*Can not relate snapshot name:UserWarning")

API_KEY = "sk-turnlaw-recording-SECRET-4242424242"
PORT = re.compile(r"127\.0\.0\.1:\d")
MINTED_ID = re.compile(r"\b(?:agent|conv|message|run)-[0-9a-f]{8}")
"""An id the reference mints (`agent-<uuid>`, `conv-<uuid>`, `message-<uuid>`, `run-<hex>`):
none may reach a recording, or it would change on every run."""

SYSTEM = "You take restaurant bookings. Be brief."
BOOK = "Book me a table for two on Friday."
THREE = "Make it three."
BOOKED = "Booked: two, Friday."
REFUND = "Please refund order 7."
QUESTION = "Approve a refund for order 7?"
DIFFERENT = "never mind, different question"


class AgentFactory(Protocol):
    """`await new_agent(id=..., tools=(...), memory=...)`: an agent against the fake."""

    def __call__(self, **spec: Any) -> Awaitable[AgentUnderTest]: ...


Scenario = Callable[[AgentFactory, ScriptedProvider], Awaitable[None]]


def requests(provider: ScriptedProvider, count: int) -> list[RequestIR]:
    seen = provider.wire.requests
    assert len(seen) == count, f"expected {count} model request(s), the fake saw {len(seen)}"
    return seen


def tool_results(request: RequestIR) -> list[tuple[str | None, str]]:
    return [(m.tool_call_id, m.text) for m in request.messages if m.role == "tool"]


def paused_on(outcome: RunOutcome, question: str) -> str:
    """The pending call's id, after checking the run paused to ask `question`."""
    assert outcome.answer is None and outcome.paused is not None, f"did not pause: {outcome}"
    assert outcome.paused.tool_name == "ask_person"
    assert outcome.paused.question == question
    return outcome.paused.tool_call_id


# -- the walkthroughs ---------------------------------------------------------------------


async def book_a_table(new_agent: AgentFactory, provider: ScriptedProvider) -> None:
    """run() is one turn; follow_up() continues this agent's conversation."""
    provider.script([text(BOOKED), text("Three it is: Friday, three people.")])
    agent = await new_agent(system=SYSTEM)
    assert (await agent.run(BOOK)).answer == BOOKED
    assert (await agent.follow_up(THREE)).answer == "Three it is: Friday, three people."
    first, second = requests(provider, 2)
    assert first.turns() == [("user", BOOK)]
    assert second.turns() == [("user", BOOK), ("assistant", BOOKED), ("user", THREE)], (
        "the follow-up did not show the model the first turn and its answer"
    )
    assert first.system == second.system == SYSTEM


async def continue_from_store(new_agent: AgentFactory, provider: ScriptedProvider) -> None:
    """A checkpoint is plain JSON: stored, read back, continued by another agent."""
    provider.script([text(BOOKED), text("Three it is.")])
    first = await new_agent(system=SYSTEM)
    await first.run(BOOK)
    stored = json.dumps(await first.checkpoint())  # a store, another process, a machine
    second = await new_agent(system=SYSTEM)
    assert (await second.run(THREE, continue_from=json.loads(stored))).answer == "Three it is."
    _, continued = requests(provider, 2)
    assert continued.turns() == [("user", BOOK), ("assistant", BOOKED), ("user", THREE)]


async def billing_vs_support(new_agent: AgentFactory, provider: ScriptedProvider) -> None:
    """One named agent does not answer another named agent's conversation."""
    provider.script([text("The duplicate charge on order 7 is refunded.")])
    billing = await new_agent(id="billing", system="You answer billing questions.")
    await billing.run("Why was I charged twice for order 7?")
    conversation = await billing.checkpoint()
    support = await new_agent(id="support", system="You answer support questions.")
    with pytest.raises(Refused) as refused:
        await support.run("And where is my parcel?", continue_from=conversation)
    assert refused.value.kind is RefusalKind.MISMATCH
    (only,) = requests(provider, 1)  # the refusal sent nothing
    assert only.turns() == [("user", "Why was I charged twice for order 7?")]


async def refund_approval(new_agent: AgentFactory, provider: ScriptedProvider) -> None:
    """A tool pauses to ask a person; resume() hands it the decision as its result."""
    provider.script([tool_call("ask_person", {"question": QUESTION}), text("Order 7 is refunded.")])
    agent = await new_agent(system=SYSTEM, tools=("ask_person",))
    paused = await agent.run(REFUND)
    call_id = paused_on(paused, QUESTION)
    requests(provider, 1)  # pausing asks a person, not the model
    assert (await agent.resume(paused.checkpoint, "approved")).answer == "Order 7 is refunded."
    _, resumed = requests(provider, 2)
    assert resumed.turns()[0] == ("user", REFUND)
    assert [c.id for c in resumed.messages[1].tool_calls] == [call_id]
    assert tool_results(resumed) == [(call_id, "approved")], "the decision is the call's result"


async def abandon_refund(new_agent: AgentFactory, provider: ScriptedProvider) -> None:
    """abandon_pause() says what it dropped; the next turn shows the call answered as such."""
    provider.script([tool_call("ask_person", {"question": QUESTION}), text("Go ahead.")])
    agent = await new_agent(system=SYSTEM, tools=("ask_person",))
    call_id = paused_on(await agent.run(REFUND), QUESTION)
    dropped = await agent.abandon_pause()
    assert dropped == {"tool_name": "ask_person", "tool_call_id": call_id, "question": QUESTION}
    assert (await agent.follow_up(DIFFERENT)).answer == "Go ahead."
    _, after = requests(provider, 2)
    assert after.user_texts() == [REFUND, DIFFERENT]
    ((answered, result),) = tool_results(after)
    assert answered == call_id and result != "approved" and "abandoned" in result, (
        f"the dropped call must be answered as abandoned, not approved: {result!r}"
    )


async def memory_recall(new_agent: AgentFactory, provider: ScriptedProvider) -> None:
    """Memory recalls prior turns into the system prompt; it does not replay them."""
    provider.script([text(BOOKED), text("Three it is.")])
    agent = await new_agent(system=SYSTEM, memory=True)
    guest = IdentitySpec(conversation_id="guest-42")
    await agent.run(BOOK, identity=guest)
    await agent.run(THREE, identity=guest)
    first, second = requests(provider, 2)
    assert "<memory" not in first.system
    assert second.system.startswith(SYSTEM)
    assert re.search(r'<memory role="user"[^>]*>' + re.escape(BOOK), second.system), (
        f"no <memory> block recalling the first turn in {second.system!r}"
    )
    assert second.turns() == [("user", THREE)], "recall must not come back as message turns"


async def who_am_i(new_agent: AgentFactory, provider: ScriptedProvider) -> None:
    """A session id alone derives a namespace, which is never published as the identity."""
    provider.script([tool_call("whoami"), text("You are not signed in; session kiosk-7.")])
    agent = await new_agent(system=SYSTEM, tools=("whoami",))
    await agent.run("Who am I?", session_id="kiosk-7")
    _, after = requests(provider, 2)
    ((_, result),) = tool_results(after)
    assert json.loads(result) == {"identity": None, "session_id": "kiosk-7"}


SCENARIOS: dict[str, Scenario] = {
    "book-a-table": book_a_table,
    "continue-from-store": continue_from_store,
    "billing-vs-support": billing_vs_support,
    "refund-approval": refund_approval,
    "abandon-refund": abandon_refund,
    "memory-recall": memory_recall,
    "who-am-i": who_am_i,
}
DIALECTS = list(Dialect)


async def record(scenario: Scenario, dialect: Dialect) -> ScriptedProvider:
    """Play a scenario with the reference runtime over loopback HTTP; return the fake."""
    provider = ScriptedProvider()
    made: list[AgentUnderTest] = []
    with LoopbackServer(provider):

        async def new_agent(**spec: Any) -> AgentUnderTest:
            agent = await implementation.create_agent(
                AgentSpec(
                    base_url=provider.base_url or "", api_key=API_KEY, dialect=dialect, **spec
                )
            )
            made.append(agent)
            return agent

        try:
            await scenario(new_agent, provider)
        finally:
            for agent in made:
                await agent.close()
    provider.verify()
    return provider


async def record_hosted(
    scenario: HostedScenario, dialect: Dialect, folder: Path
) -> ScriptedProvider:
    """Play a served scenario with the reference host (a real process per start)."""
    provider = ScriptedProvider()
    started: list[RunningHost] = []
    with LoopbackServer(provider):

        async def start_host(store: str, **agent: Any) -> RunningHost:
            spec = AgentSpec(
                base_url=provider.base_url or "", api_key=API_KEY, dialect=dialect, **agent
            )
            host = await implementation.start_host(HostSpec(agent=spec, store=str(folder / store)))
            started.append(host)
            return host

        try:
            await scenario(start_host, provider)
        finally:
            for host in started:
                await host.kill()
    provider.verify()
    return provider


async def record_sessions(
    scenario: SessionScenario, dialect: Dialect, folder: Path
) -> ScriptedProvider:
    """Play a session scenario with the reference session runtime (in this process, on a
    loopback socket, through its session door)."""
    provider = ScriptedProvider()
    opened: list[BackendUnderTest] = []
    with LoopbackServer(provider):

        async def open_backend(store: str) -> BackendUnderTest:
            spec = BackendSpec(
                base_url=provider.base_url or "",
                api_key=API_KEY,
                dialect=dialect,
                store=str(folder / store),
            )
            backend = await implementation.open_backend(spec)
            opened.append(backend)
            return backend

        try:
            await scenario(open_backend, provider)
        finally:
            for backend in opened:
                await backend.close()
    provider.verify()
    return provider


def assert_clean(recording: str, where: str) -> None:
    assert API_KEY not in recording, f"{where}: the API key reached the recording"
    assert not PORT.search(recording), f"{where}: a loopback port reached the recording"
    assert not MINTED_ID.search(recording), f"{where}: an id a runtime minted reached the recording"


@pytest.fixture
def recording(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(WireRecordingExtension)


@pytest.mark.parametrize("dialect", DIALECTS, ids=[d.value for d in DIALECTS])
@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_reference_recording(
    scenario: str, dialect: Dialect, recording: SnapshotAssertion
) -> None:
    provider = await record(SCENARIOS[scenario], dialect)
    exported = provider.wire.export()
    assert_clean(exported, f"{scenario}/{dialect.value}")
    assert {entry["dialect"] for entry in json.loads(exported)} == {dialect.value}
    assert exported == recording


@pytest.mark.parametrize("dialect", DIALECTS, ids=[d.value for d in DIALECTS])
@pytest.mark.parametrize("scenario", list(HOSTED))
async def test_hosted_recording(
    scenario: str, dialect: Dialect, recording: SnapshotAssertion, tmp_path: Path
) -> None:
    provider = await record_hosted(HOSTED[scenario], dialect, tmp_path)
    exported = provider.wire.export()
    assert_clean(exported, f"{scenario}/{dialect.value}")
    assert {entry["dialect"] for entry in json.loads(exported)} == {dialect.value}
    assert exported == recording


@pytest.mark.parametrize("dialect", DIALECTS, ids=[d.value for d in DIALECTS])
@pytest.mark.parametrize("scenario", list(SESSIONS))
async def test_session_recording(
    scenario: str, dialect: Dialect, recording: SnapshotAssertion, tmp_path: Path
) -> None:
    provider = await record_sessions(SESSIONS[scenario], dialect, tmp_path)
    exported = provider.wire.export()
    assert_clean(exported, f"{scenario}/{dialect.value}")
    assert {entry["dialect"] for entry in json.loads(exported)} == {dialect.value}
    assert exported == recording


# -- the recordings on disk ---------------------------------------------------------------


@pytest.fixture
def recordings_root(pytestconfig: pytest.Config) -> Path:
    return pytestconfig.rootpath / RECORDINGS_DIR


EXPECTED = [
    (scenario, dialect) for scenario in [*SCENARIOS, *HOSTED, *SESSIONS] for dialect in DIALECTS
]


def test_every_recording_exists_without_keys_or_ports(recordings_root: Path) -> None:
    missing = [
        path
        for scenario, dialect in EXPECTED
        if not (path := recording_path(recordings_root, scenario, dialect)).is_file()
    ]
    assert not missing, f"missing recordings (run with --snapshot-update): {missing}"
    for path in sorted(recordings_root.rglob("*.json")):
        assert_clean(path.read_text(encoding="utf-8"), str(path))


def test_no_recording_without_a_scenario(recordings_root: Path) -> None:
    """syrupy flags an unused recording only when pytest runs without path arguments; this
    flags one however the suite is invoked."""
    stale = unexpected_recordings(recordings_root, EXPECTED)
    assert not stale, f"recordings no scenario produces (delete them): {stale}"


def test_write_recording_uses_the_same_file_form(recordings_root: Path, tmp_path: Path) -> None:
    stored = recording_path(recordings_root, "book-a-table", Dialect.OPENAI_CHAT)
    export = stored.read_text(encoding="utf-8")
    written = write_recording(tmp_path, "book-a-table", Dialect.OPENAI_CHAT, export.rstrip("\n"))
    assert written == tmp_path / "book-a-table" / "openai-chat.json"
    assert written.read_bytes() == stored.read_bytes()
    with pytest.raises(ValueError, match="path component"):
        write_recording(tmp_path, "../escape", "openai-chat", export)
    with pytest.raises(ValueError, match="must be JSON"):
        write_recording(tmp_path, "book-a-table", "openai-chat", "not json")
