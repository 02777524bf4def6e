"""The session model as a state machine: any program of agents, sessions, turns, queued
sends, aborts and broken connections shows every request exactly its conversation.

The machine keeps the seed's agents and conversations as a model and compares every
request with it; a violation is charged to the law whose statement the step exercised.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TypeVar

import pytest
from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
)

from ._kit import (
    BackendFactory,
    BreakHow,
    Capability,
    Hold,
    Implementation,
    LawMachine,
    LawViolation,
    PremiseNotMet,
    RefusalKind,
    Refused,
    RunningBackend,
    Said,
    ScriptedProvider,
    SessionAgentSpec,
    SessionUnderTest,
    Step,
    StreamPass,
    answer_of,
    conversation_shown,
    declares,
    explore,
    final_text_problem,
    first_carrying,
    last_user_carries,
    run_id_problems,
    text,
    words,
)

# Marked explicitly so the suite runs under any asyncio_mode the user's project sets.
pytestmark = pytest.mark.asyncio

DEFAULT = "session.agent-has-default-conversation"
NEW = "session.new-session-is-new-conversation"
EITHER = "session.resume-either-id"
QUEUED = "turn.queued-not-dropped"
ABORT = "turn.abort-keeps-session"
UNUSABLE = "connection.broken-is-unusable"
ONE_RESULT = "turn.one-result"
RUN_IDS = "turn.run-ids"
ANSWERS = ("one line", "several lines", "nothing")
"""The shapes an answer the model gives is drawn from."""
STEP_TIMEOUT = 60.0
"""Seconds one step may take (a runtime process start is a few)."""
MAX_OPEN = 3
"""Sessions open at once at most: a session may be a process of its own."""

T = TypeVar("T")
_MACHINES = itertools.count(1)


@dataclass
class Conversation:
    """The model of one conversation: its completed turns, how the law names it."""

    key: str
    agent: int
    history: list[Said] = field(default_factory=list)
    conversation_id: str | None = None
    maybe: set[str] = field(default_factory=set)
    """Messages the seed leaves open: an aborted message the next request may carry."""
    runs: set[str] = field(default_factory=set)
    """Every run its turns named so far."""


@dataclass
class Open:
    session: SessionUnderTest
    conversation: Conversation
    law: str
    """The law whose statement this session's turns rest on (how it was opened)."""


def programs(
    fake: ScriptedProvider,
    holder: list[RunningBackend],
    new_backend: BackendFactory,
    implementation: Implementation,
    loop: asyncio.AbstractEventLoop,
    violations: list[LawViolation],
    noted: list[LawViolation],
    *,
    aborts: bool,
) -> type[RuleBasedStateMachine]:
    """The machine, closed over this test's fake, its backend (`holder[0]`, replaced when
    a kill makes the backend open again), and its loop. With `aborts`, programs abort held
    turns too, and the test judges the abort law and the queue behind an aborted turn
    alone: what else a step finds wrong is a premise (the other test judges those laws),
    and the passes are not judged on the side. Side judgments go to `noted`."""
    can_abort = aborts
    judged = {ABORT, QUEUED} if aborts else None
    ways: tuple[tuple[BreakHow, Capability], ...] = (
        ("drop", Capability.SESSION_DROP),
        ("kill", Capability.SESSION_KILL),
    )
    hows = [how for how, needed in ways if declares(implementation, needed)]

    def violated(law: str, message: str) -> Exception:
        if judged is not None and law not in judged:
            return PremiseNotMet(law, message)
        violations.append(LawViolation(law, message))
        return violations[-1]

    def note_violation(law: str, message: str) -> None:
        """A law judged on the side: noted, and the program goes on."""
        if judged is None:
            noted.append(LawViolation(law, message))

    class SessionPrograms(LawMachine):
        def __init__(self) -> None:
            super().__init__(loop, STEP_TIMEOUT)
            self.name = f"program-{next(_MACHINES)}"
            self.agents: list[str] = []
            self.conversations: list[Conversation] = []
            self.open: list[Open] = []
            self.sent: list[str] = []
            self.replies: dict[str, list[str]] = {}
            """Per message, what the model answers requests for its turn, in order."""
            self.count = 0
            self.live = True
            """False once the example is over: its scripts step aside even if a failing
            step left them unused, so the next example's requests get its own answers."""

        # -- bookkeeping -----------------------------------------------------------------

        def fresh(self, what: str) -> str:
            self.count += 1
            return f"{self.name} {what} {self.count}."

        def drawn_answer(self, data: st.DataObject, what: str) -> str:
            """An answer of a drawn shape: one line, several lines, or nothing."""
            shape = data.draw(st.sampled_from(ANSWERS), f"{what} answer")
            answer = self.fresh("answer")
            if shape == "several lines":
                return f"{answer}\nIts second line.\n\n- and a list item"
            return "" if shape == "nothing" else answer

        def answer(self, message: str, reply: str, *, hold: Hold | None = None) -> None:
            """What the model answers the requests for `message`'s turn: `reply` (held,
            with `hold`), then, after an empty reply, text for a runtime that asks the
            model again (some do, to get text; the turn's answer is then that one)."""
            replies = [reply] if reply else [reply, self.fresh("answer asked again")]
            self.replies[message] = replies
            first: Step = hold if hold is not None else text(reply)
            self.script([first, *(text(r) for r in replies[1:])], message)

        def final(self, message: str) -> str:
            """The turn's final answer: the reply to the last request for its turn."""
            replies = self.replies[message]
            asked = len([r for r in fake.wire.requests if last_user_carries(r, message)])
            return replies[max(0, min(asked, len(replies)) - 1)]

        def script(self, steps: list[Step], message: str) -> None:
            """Answers for the requests for `message`'s turn (its last user message carries
            it), in a script that steps aside once used or once the example is over."""
            script = fake.script(
                steps,
                when=lambda request: (
                    self.live and not script.exhausted and last_user_carries(request, message)
                ),
                allow_unused=True,
            )

        def opened(self, session: SessionUnderTest, conversation: Conversation, law: str) -> None:
            ids = self.wait(session.ids())
            known = conversation.conversation_id
            if known is not None and ids.conversation_id != known:
                raise violated(
                    law,
                    f"step {self.step}: the session reports conversation {ids.conversation_id!r},"
                    f" not {known!r} which it was opened on",
                )
            conversation.conversation_id = ids.conversation_id
            self.open.append(Open(session, conversation, law))

        def backend(self) -> RunningBackend:
            return holder[0]

        def attempt(self, law: str, what: str, step: Awaitable[T]) -> T:
            """A step the law of `law` promises works: a refusal, or a held request that
            never arrives (the runtime did not send it), is that law's violation."""
            try:
                return self.wait(step)
            except Refused as refused:
                raise violated(law, f"step {self.step}: {what} was refused: {refused}") from None
            except TimeoutError as error:
                raise violated(law, f"step {self.step}: {what}: {error}") from None

        # -- agents and sessions -----------------------------------------------------------

        @initialize()
        def first_agent(self) -> None:
            self.new_agent()

        @precondition(lambda self: len(self.agents) < 2)
        @rule()
        def new_agent(self) -> None:
            agent_id = self.wait(self.backend().create_agent(SessionAgentSpec()))
            self.agents.append(agent_id)
            index = len(self.agents) - 1
            self.conversations.append(Conversation(f"agent {index}'s default", index))
            self.say(f"create_agent -> agent {index}")

        @precondition(lambda self: len(self.open) < MAX_OPEN)
        @rule(data=st.data())
        def create_session(self, data: st.DataObject) -> None:
            index = data.draw(st.integers(0, len(self.agents) - 1), "agent")
            conversation = Conversation(f"new conversation {len(self.conversations)}", index)
            self.conversations.append(conversation)
            self.say(f"create_session(agent {index}) -> {conversation.key}")
            opening = self.backend().create_session(self.agents[index])
            self.opened(self.attempt(NEW, "create_session", opening), conversation, NEW)

        @precondition(lambda self: len(self.open) < MAX_OPEN)
        @rule(data=st.data())
        def resume_by_agent(self, data: st.DataObject) -> None:
            index = data.draw(st.integers(0, len(self.agents) - 1), "agent")
            default = next(c for c in self.conversations if c.agent == index)
            self.say(f"resume_session(agent {index}) -> {default.key}")
            opening = self.backend().resume_session(self.agents[index])
            self.opened(self.attempt(DEFAULT, "resume by agent id", opening), default, DEFAULT)

        @precondition(
            lambda self: (
                len(self.open) < MAX_OPEN and any(c.conversation_id for c in self.conversations)
            )
        )
        @rule(data=st.data())
        def resume_by_conversation(self, data: st.DataObject) -> None:
            known = [c for c in self.conversations if c.conversation_id]
            conversation = data.draw(st.sampled_from(known), "conversation")
            assert conversation.conversation_id is not None
            self.say(f"resume_session(<{conversation.key}'s id>)")
            opening = self.backend().resume_session(conversation.conversation_id)
            session = self.attempt(EITHER, "resume by conversation id", opening)
            self.opened(session, conversation, EITHER)

        @precondition(lambda self: bool(self.open))
        @rule(data=st.data())
        def close(self, data: st.DataObject) -> None:
            chosen = data.draw(st.sampled_from(self.open), "session")
            self.say(f"close the session on {chosen.conversation.key}")
            self.wait(chosen.session.close())
            self.open.remove(chosen)

        # -- turns -------------------------------------------------------------------------

        def check(self, where: str, chosen: Open, pending: list[str], law: str) -> list[str]:
            """The request for the turn that took up `pending[0]` shows the conversation,
            then that message (and, if the runtime merged them, the ones queued after it,
            in order): the messages it carried."""
            request = first_carrying(fake.wire.requests, pending[0])
            conversation = chosen.conversation
            if request is None:
                raise violated(law, f"{where}: {pending[0]!r} never reached the model")
            shown = conversation_shown(request, self.sent)
            history = conversation.history
            rest = shown[len(history) :]
            maybe = {("user", m) for m in conversation.maybe}
            while rest and rest[0] in maybe and rest[0] != ("user", pending[0]):
                rest = rest[1:]
            if (
                shown[: len(history)] != history
                or not rest
                or rest != [("user", m) for m in pending[: len(rest)]]
            ):
                expected = [*history, ("user", pending[0])]
                raise violated(
                    law,
                    f"{where}: {conversation.key} was shown {shown}, not exactly its "
                    f"conversation {expected} (another conversation's turns, a lost turn, "
                    f"or turns out of order)",
                )
            conversation.history = shown
            conversation.maybe.clear()
            return pending[: len(rest)]

        def played(
            self,
            where: str,
            chosen: Open,
            pending: list[str],
            law: str,
            *,
            shown_law: str | None = None,
        ) -> list[str]:
            """One pass: the turn that takes up `pending[0]` ends in its successful result
            and showed exactly its conversation (judged under `shown_law`, if another law's
            statement decides what it shows); its result and runs are judged on the side.
            The messages the turn carried."""
            stream_pass = self.wait(chosen.session.stream(wait=20.0))
            result = stream_pass.result
            if stream_pass.ended != "result" or result is None or not result.success:
                raise violated(
                    law,
                    f"{where}: the turn for {pending[0]!r} on {chosen.conversation.key} ended "
                    f"{stream_pass.ended!r} with {[e.type for e in stream_pass.events]}",
                )
            carried = self.check(where, chosen, pending, shown_law or law)
            final = self.final(carried[0])
            if final:
                chosen.conversation.history.append(("assistant", final))
            self.judge_pass(where, chosen.conversation, stream_pass, final)
            return carried

        def judge_pass(
            self, where: str, conversation: Conversation, stream_pass: StreamPass, final: str
        ) -> None:
            """On the side: the result's text and the turn's runs."""
            what = f"the turn of {where}"
            result = stream_pass.result
            assert result is not None
            problem = final_text_problem(result.text, final, what)
            if problem is None and words(final) not in words(answer_of(stream_pass)):
                problem = (
                    f"the assistant events of {what} say {answer_of(stream_pass)!r}, not "
                    f"the answer {final!r}"
                )
            if problem is not None:
                note_violation(ONE_RESULT, problem)
            problems, runs = run_id_problems(stream_pass, what, ran_model=True)
            shared = runs & conversation.runs
            if shared:
                problems.append(
                    f"{what} names runs {sorted(shared)}, which an earlier turn of "
                    f"{conversation.key} named: a run id that connects both connects neither"
                )
            conversation.runs |= runs
            if problems:
                note_violation(RUN_IDS, "; ".join(problems))

        def played_queue(
            self, where: str, chosen: Open, queued: list[str], *, shown_law: str | None = None
        ) -> None:
            """The turns that take up the queued messages, one pass each (a merged turn
            carries several); then the conversation lists each once. What the first of them
            shows of the turn before it is judged under `shown_law` (after an abort, the
            abort law's: whether the aborted turn was cancelled)."""
            pending = list(queued)
            first_law = shown_law
            while pending:
                took = self.played(where, chosen, pending, QUEUED, shown_law=first_law)
                pending, first_law = pending[len(took) :], None
            listed = self.attempt(QUEUED, "list_messages()", chosen.session.list_messages())
            for message in queued:
                times = sum(1 for m in listed if m.role == "user" and message in m.text)
                if times > 1:
                    raise violated(
                        QUEUED,
                        f"{where}: {message!r} is listed {times} times among the "
                        f"conversation's messages after the turn that carried it was "
                        f"answered: it is still shown as waiting",
                    )

        @precondition(lambda self: bool(self.open))
        @rule(data=st.data())
        def turn(self, data: st.DataObject) -> None:
            chosen = data.draw(st.sampled_from(self.open), "session")
            message = self.fresh("message")
            self.sent.append(message)
            self.answer(message, self.drawn_answer(data, "its"))
            where = self.say(f"send {message!r} on {chosen.conversation.key}")
            self.attempt(chosen.law, f"sending {message!r}", chosen.session.send(message))
            self.played(where, chosen, [message], chosen.law)

        @precondition(lambda self: bool(self.open))
        @rule(data=st.data())
        def send_while_active(self, data: st.DataObject) -> None:
            chosen = data.draw(st.sampled_from(self.open), "session")
            count = data.draw(st.integers(1, 3), "messages queued")
            active = self.fresh("active message")
            queued = [self.fresh("queued message") for _ in range(count)]
            self.sent += [active, *queued]
            held = self.drawn_answer(data, "held")
            hold = Hold(label=self.fresh("hold"), then=text(held))
            self.answer(active, held, hold=hold)
            for message in queued:
                self.answer(message, self.drawn_answer(data, "queued"))
            where = self.say(f"send {active!r}, then {queued} while it is held")
            self.attempt(chosen.law, f"sending {active!r}", chosen.session.send(active))
            self.attempt(chosen.law, f"{active!r} reaching the model", hold.arrived(timeout=20.0))
            for message in queued:
                sending = chosen.session.send(message)
                self.attempt(QUEUED, f"sending {message!r} while a turn is active", sending)
            hold.release()
            self.played(where, chosen, [active], chosen.law)
            self.played_queue(where, chosen, queued)

        @precondition(lambda self: can_abort and bool(self.open))
        @rule(data=st.data())
        def abort_held_turn(self, data: st.DataObject) -> None:
            chosen = data.draw(st.sampled_from(self.open), "session")
            count = data.draw(st.integers(1, 2), "messages queued behind it")
            aborted = self.fresh("aborted message")
            queued = [self.fresh("queued message") for _ in range(count)]
            self.sent += [aborted, *queued]
            hold = Hold(label=self.fresh("hold"), then=text(self.fresh("never shown")))
            self.script([hold], aborted)
            for message in queued:
                self.answer(message, self.drawn_answer(data, "queued"))
            where = self.say(f"send {aborted!r}, queue {queued}, abort it while it is held")
            self.attempt(chosen.law, f"sending {aborted!r}", chosen.session.send(aborted))
            self.attempt(chosen.law, f"{aborted!r} reaching the model", hold.arrived(timeout=20.0))
            for message in queued:
                sending = chosen.session.send(message)
                self.attempt(QUEUED, f"sending {message!r} while a turn is active", sending)
            self.attempt(ABORT, "abort()", chosen.session.abort())
            stream_pass = self.attempt(
                ABORT, "the pass after abort()", chosen.session.stream(wait=5.0)
            )
            hold.release()
            if stream_pass.ended != "result":
                later = chosen.session.stream(wait=20.0)
                stream_pass = self.attempt(ABORT, "the pass after abort()", later)
            if stream_pass.ended != "result":
                raise violated(ABORT, f"{where}: the aborted turn's pass never ended in a result")
            if stream_pass.result is not None and stream_pass.result.success:
                raise violated(
                    ABORT,
                    f"{where}: the pass after abort() ended with a successful result (events "
                    f"{[e.type for e in stream_pass.events]}): not the aborted turn's end",
                )
            chosen.conversation.maybe.add(aborted)
            chosen.law = ABORT  # the next turn of this session shows the session survived
            try:
                self.played_queue(where, chosen, queued, shown_law=ABORT)
            except LawViolation as lost:
                if lost.law != QUEUED:
                    raise
                self.runs_after_abort(where, chosen, lost)
                raise

        def runs_after_abort(self, where: str, chosen: Open, lost: LawViolation) -> None:
            """The messages queued behind an aborted turn did not run as the law says: if
            the session runs no turn at all now (a new message fails too), the abort is
            what failed, and `lost` is its knock-on, charged to the abort law instead."""
            probe = self.fresh("probe message")
            self.sent.append(probe)
            self.answer(probe, self.fresh("answer"))
            try:
                self.wait(chosen.session.send(probe))
                after: StreamPass | None = self.wait(chosen.session.stream(wait=20.0))
            except Refused:
                after = None
            if after is not None and after.result is not None and after.result.success:
                return
            violations.remove(lost)
            raise violated(
                ABORT,
                f"{where}: after abort() the session runs no turn at all (a new message "
                f"failed too), so what became of the messages queued behind the aborted "
                f"turn is the abort's doing: {lost}",
            )

        @precondition(lambda self: bool(hows) and bool(self.open))
        @rule(data=st.data())
        def break_idle_connection(self, data: st.DataObject) -> None:
            chosen = data.draw(st.sampled_from(self.open), "session")
            how = data.draw(st.sampled_from(hows), "how")
            where = self.say(f"break the idle session on {chosen.conversation.key} by {how}")
            self.wait(chosen.session.break_connection(how))
            self.open.remove(chosen)
            try:
                self.wait(chosen.session.send(self.fresh("never sent")))
            except Refused as refused:
                if refused.kind is not RefusalKind.SESSION_UNUSABLE:
                    raise violated(
                        UNUSABLE, f"{where}: reuse was refused as {refused.kind.value}"
                    ) from None
            else:
                raise violated(UNUSABLE, f"{where}: the broken session took a new message")
            if how == "kill":
                # The runtime is gone: every session it served is, and so is the backend;
                # the conversations live on in the store, opened again.
                for other in self.open:
                    try:
                        self.wait(other.session.close())
                    except Exception as error:  # a dead session may refuse even to close
                        note(f"closing a session of the killed runtime: {error!r}")
                self.open.clear()
                holder[0] = self.wait(new_backend(store=holder[0].store, killable=True))

        def teardown(self) -> None:
            self.live = False
            for chosen in self.open:
                try:
                    self.wait(chosen.session.close())
                except Exception as error:
                    note(f"closing at teardown: {error!r}")

    return SessionPrograms


async def run_programs(
    fake: ScriptedProvider,
    new_backend: BackendFactory,
    implementation: Implementation,
    *,
    aborts: bool,
    steps: int,
) -> None:
    kill = declares(implementation, Capability.SESSION_KILL)
    holder = [await new_backend(killable=kill)]
    violations: list[LawViolation] = []
    noted: list[LawViolation] = []
    loop = asyncio.get_running_loop()
    machine = programs(
        fake, holder, new_backend, implementation, loop, violations, noted, aborts=aborts
    )
    await explore(machine, steps=steps, violations=violations)
    if noted:
        raise noted[0]


# A session may be a process of its own, and shrinking replays many examples.
@pytest.mark.law(
    "session.agent-has-default-conversation",
    "session.new-session-is-new-conversation",
    "session.resume-either-id",
    "turn.queued-not-dropped",
    "connection.broken-is-unusable",
    "turn.one-result",
    "turn.run-ids",
)
@pytest.mark.timeout(600)
async def test_any_program_of_sessions_shows_every_request_exactly_its_conversation(
    fake: ScriptedProvider, new_backend: BackendFactory, implementation: Implementation
) -> None:
    await run_programs(fake, new_backend, implementation, aborts=False, steps=8)


@pytest.mark.law("turn.abort-keeps-session", "turn.queued-not-dropped")
@pytest.mark.timeout(600)
async def test_a_session_that_aborted_goes_on_showing_its_conversation(
    fake: ScriptedProvider, new_backend: BackendFactory, implementation: Implementation
) -> None:
    await run_programs(fake, new_backend, implementation, aborts=True, steps=6)
