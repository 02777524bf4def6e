"""The session-store battery: docs/hosting.md's store contract as tests any store runs.

Subclass `SessionStoreBattery` in a test file (its name starting with `Test`) and say
how to open your store; every test gets a fresh path, and the Hypothesis round trip a
fresh store per example, so one example's sessions never explain another's result.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ._checkpoints import AWKWARD_IDS, CHECKPOINTS, SESSION_IDS, checkpoint_of
from ._race_plan import SHARED, contested_id, own_id, shared_id
from ._store_protocol import SessionStoreLike, StoredSessionLike, import_spec

_ErrorTypes = type[BaseException] | tuple[type[BaseException], ...]


class SessionStoreBattery:
    """The store contract, test by test. Set `store_spec` (or override `make_store`);
    set `damage_spec` (or override `damage`) for the unreadable-session checks. The
    Hypothesis round trip, `test_every_saved_checkpoint_loads_back`, is added to each
    subclass by `__init_subclass__`."""

    store_spec: ClassVar[str | None] = None
    """"module:attr" of a callable `(path) -> store`; a second process opens the store
    through it for the two-writer check."""
    damage_spec: ClassVar[str | None] = None
    """"module:attr" of a callable `(path, session_id)` that makes one stored session
    unreadable; without it (and without a `damage` override) those checks are skipped."""
    persistent: ClassVar[bool] = True
    """The store keeps its sessions at `path`, so a store opened again on it (here or
    in another process) holds them. False for an in-memory store."""
    unreadable_error: ClassVar[_ErrorTypes] = Exception
    """What `load` of an unreadable session raises (narrow it to your store's type)."""
    ownership_error: ClassVar[_ErrorTypes] = Exception
    """What `save` by a second owner raises."""
    writes_per_process: ClassVar[int] = 60
    claims_per_process: ClassVar[int] = 20

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Give each subclass its own Hypothesis test, so each store's examples are its
        own run (one @given function shared by several classes is one Hypothesis test
        called from several executors) and the profile in force at collection applies."""
        super().__init_subclass__(**kwargs)
        if "test_every_saved_checkpoint_loads_back" not in cls.__dict__:
            round_trip = _no_timing()(given(sessions=_SESSIONS)(_round_trip))
            cls.test_every_saved_checkpoint_loads_back = round_trip  # type: ignore[attr-defined]

    # -- how to reach the store under test -------------------------------------------

    def make_store(self, path: Path) -> SessionStoreLike:
        """A store keeping its sessions at `path`."""
        if self.store_spec is None:
            raise NotImplementedError(
                f"{type(self).__name__}: set store_spec = 'module:attr' or override make_store"
            )
        factory = import_spec(self.store_spec)
        if not callable(factory):
            raise TypeError(f"store_spec {self.store_spec!r} is not callable")
        store: SessionStoreLike = factory(path)
        return store

    def damage(self, store: SessionStoreLike, path: Path, session_id: str) -> None:
        """Make one stored session unreadable the way a real store goes bad."""
        if self.damage_spec is None:
            pytest.skip("no damage hook: set damage_spec or override damage()")
        hook = import_spec(self.damage_spec)
        if not callable(hook):
            raise TypeError(f"damage_spec {self.damage_spec!r} is not callable")
        hook(path, session_id)

    @pytest.fixture
    def store_path(self, tmp_path: Path) -> Path:
        return tmp_path / "sessions.db"

    @pytest.fixture
    def store(self, store_path: Path) -> Iterator[SessionStoreLike]:
        opened = self.make_store(store_path)
        try:
            yield opened
        finally:
            opened.close()

    # -- absent, round trip, forget --------------------------------------------------

    def test_an_absent_session_loads_as_nothing(self, store: SessionStoreLike) -> None:
        assert store.load("never-saved") is None
        assert store.owner("never-saved") is None
        assert store.forget("never-saved") is False

    @pytest.mark.parametrize("session_id", AWKWARD_IDS, ids=lambda s: f"{len(s)}chars")
    def test_an_awkward_id_round_trips(self, store: SessionStoreLike, session_id: str) -> None:
        store.save(session_id, checkpoint_of("awkward", 1), owner="o")
        assert _parsed(store.load(session_id), session_id)["sequence"] == 1
        assert store.owner(session_id) == "o"
        assert store.forget(session_id) is True
        assert store.load(session_id) is None

    def test_awkward_ids_are_told_apart(self, store: SessionStoreLike) -> None:
        for sequence, session_id in enumerate(AWKWARD_IDS):
            store.save(session_id, checkpoint_of("apart", sequence), owner=None)
        for sequence, session_id in enumerate(AWKWARD_IDS):
            found = _parsed(store.load(session_id), session_id)["sequence"]
            assert found == sequence, (
                f"{session_id!r:.60} loads the checkpoint of {AWKWARD_IDS[found]!r:.60}"
            )

    def test_forget_removes_that_session_only(self, store: SessionStoreLike) -> None:
        store.save("gone", checkpoint_of("forget", 1), owner="o")
        store.save("kept", checkpoint_of("forget", 2), owner=None)
        assert store.forget("gone") is True
        assert store.load("gone") is None
        assert store.owner("gone") is None
        assert store.forget("gone") is False
        assert _parsed(store.load("kept"), "kept")["sequence"] == 2
        store.save("gone", checkpoint_of("forget", 3), owner="someone-else")
        assert store.owner("gone") == "someone-else", "a forgotten session starts over"

    # -- unreadable is not absent ----------------------------------------------------

    def test_an_unreadable_session_is_not_absent(
        self, store: SessionStoreLike, store_path: Path
    ) -> None:
        store.save("bad", checkpoint_of("unreadable", 1), owner=None)
        store.save("good", checkpoint_of("unreadable", 2), owner=None)
        self.damage(store, store_path, "bad")
        for attempt in ("first", "second"):
            try:
                loaded = store.load("bad")
            except self.unreadable_error:
                continue
            assert loaded is not None, (
                f"{attempt} load of an unreadable session answered 'absent': a host would "
                "start it afresh and overwrite what was there"
            )
            pytest.fail(f"{attempt} load of an unreadable session answered a checkpoint")
        assert _parsed(store.load("good"), "good")["sequence"] == 2, "one bad row spoils another"
        assert store.forget("bad") is True, "the unreadable row was lost, not kept"
        assert store.load("bad") is None

    # -- ownership -------------------------------------------------------------------

    def test_the_first_owner_is_recorded_and_never_taken(self, store: SessionStoreLike) -> None:
        store.save("s", checkpoint_of("alice", 1), owner=None)
        assert store.owner("s") is None
        store.save("s", checkpoint_of("alice", 2), owner="alice")
        assert store.owner("s") == "alice", "the first save naming an owner records it"
        with pytest.raises(self.ownership_error):
            store.save("s", checkpoint_of("mallory", 3), owner="mallory")
        assert store.owner("s") == "alice"
        assert _parsed(store.load("s"), "s")["writer"] == "alice", "the refused save was written"
        store.save("s", checkpoint_of("alice", 4), owner=None)
        assert store.owner("s") == "alice", "a save naming no owner cleared the owner"
        store.save("s", checkpoint_of("alice", 5), owner="alice")
        assert _parsed(store.load("s"), "s")["sequence"] == 5

    def test_threads_claiming_one_session_leave_one_owner(self, store: SessionStoreLike) -> None:
        claimants = [f"principal-{n}" for n in range(6)]
        barrier = threading.Barrier(len(claimants))
        won: list[str] = []

        def claim(principal: str) -> None:
            barrier.wait()
            try:
                store.save("contested", checkpoint_of(principal, 1), owner=principal)
            except self.ownership_error:
                return
            won.append(principal)

        _run_threads([threading.Thread(target=claim, args=(p,)) for p in claimants])
        assert len(won) == 1, f"{len(won)} principals each believe they own the session: {won}"
        assert store.owner("contested") == won[0]
        assert _parsed(store.load("contested"), "contested")["writer"] == won[0]

    def test_threads_writing_at_once_lose_nothing(self, store: SessionStoreLike) -> None:
        writers, writes = 4, 25

        def write(writer: str) -> None:
            for index in range(writes):
                store.save(own_id(writer, index), checkpoint_of(writer, index), owner=None)
                store.save(shared_id(index), checkpoint_of(writer, index, padding=64), owner=None)

        _run_threads([threading.Thread(target=write, args=(f"t{n}",)) for n in range(writers)])
        _check_no_split_brain(store, [f"t{n}" for n in range(writers)], writes)

    # -- a store on disk -------------------------------------------------------------

    def test_a_reopened_store_holds_every_session(self, store_path: Path) -> None:
        if not self.persistent:
            pytest.skip("persistent = False: the store keeps nothing at its path")
        first = self.make_store(store_path)
        try:
            first.save("kept", checkpoint_of("before", 1), owner="o")
        finally:
            first.close()
        second = self.make_store(store_path)
        try:
            assert _parsed(second.load("kept"), "kept")["writer"] == "before"
            assert second.owner("kept") == "o"
        finally:
            second.close()

    def test_two_processes_writing_at_once_leave_no_split_brain(self, store_path: Path) -> None:
        if not self.persistent:
            pytest.skip("persistent = False: a second process cannot open this store")
        if self.store_spec is None:
            pytest.skip("set store_spec so a second process can open the store")
        self.make_store(store_path).close()  # created once, before the race
        reports = _race(
            self.store_spec, store_path, self.writes_per_process, self.claims_per_process
        )
        for writer, report in reports.items():
            assert not report["errors"], f"{writer} failed to write: {report['errors'][:3]}"
        store = self.make_store(store_path)
        try:
            _check_no_split_brain(store, list(reports), self.writes_per_process)
            for index in range(self.claims_per_process):
                winners = [w for w, r in reports.items() if index in r["claimed"]]
                assert len(winners) == 1, f"{contested_id(index)}: claimed by {winners or 'nobody'}"
                assert store.owner(contested_id(index)) == winners[0]
        finally:
            store.close()


_SESSIONS = st.dictionaries(SESSION_IDS, st.lists(CHECKPOINTS, min_size=1, max_size=3))
"""Session ids, each with the checkpoints saved to it in order."""


def _no_timing() -> settings:
    """The profile in force, without what times the machine: each example writes real
    files (a store's own I/O, on a CI machine that is busy), and its JSON values are big,
    so neither an example's duration (Hypothesis' deadline) nor how long the values took
    to generate (its too_slow health check) says anything about the store."""
    current = settings()
    return settings(
        current,
        deadline=None,
        suppress_health_check=[*current.suppress_health_check, HealthCheck.too_slow],
    )


def _round_trip(
    self: SessionStoreBattery,
    tmp_path_factory: pytest.TempPathFactory,
    sessions: dict[str, list[str]],
) -> None:
    """Every saved checkpoint loads back, the last save winning, on a fresh store per
    example."""
    store = self.make_store(tmp_path_factory.mktemp("round-trip") / "sessions.db")
    try:
        for session_id, checkpoints in sessions.items():
            for checkpoint in checkpoints:
                store.save(session_id, checkpoint, owner=None)
        for session_id, checkpoints in sessions.items():
            assert _parsed(store.load(session_id), session_id) == json.loads(checkpoints[-1])
    finally:
        store.close()


def _parsed(loaded: StoredSessionLike | None, session_id: str) -> Any:
    assert loaded is not None, f"session {session_id!r:.60} was saved and loads as absent"
    return json.loads(loaded.checkpoint)


def _run_threads(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
        assert not thread.is_alive(), "a writer thread hung"


def _check_no_split_brain(store: SessionStoreLike, writers: list[str], writes: int) -> None:
    """Every writer's own sessions hold its last write to each; every shared session
    holds one whole write that was made to it."""
    for writer in writers:
        missing = [i for i in range(writes) if store.load(own_id(writer, i)) is None]
        assert not missing, f"{writer}: {len(missing)} of {writes} saved sessions are gone"
        for index in range(writes):
            loaded = _parsed(store.load(own_id(writer, index)), own_id(writer, index))
            assert loaded == json.loads(checkpoint_of(writer, index)), own_id(writer, index)
    for index in range(min(writes, SHARED)):
        loaded = _parsed(store.load(shared_id(index)), shared_id(index))
        written = {
            json.dumps(json.loads(checkpoint_of(w, i, padding=64)), sort_keys=True)
            for w in writers
            for i in range(writes)
            if shared_id(i) == shared_id(index)
        }
        assert json.dumps(loaded, sort_keys=True) in written, f"{shared_id(index)}: {loaded!r:.200}"


def _race(spec: str, path: Path, writes: int, claims: int) -> dict[str, dict[str, Any]]:
    """Two writer processes, released together once both have the store open."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    command = [sys.executable, "-m", "conformance.batteries._two_writers", spec, str(path)]
    processes = {
        writer: subprocess.Popen(
            [*command, writer, str(writes), str(claims)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        for writer in ("writer-a", "writer-b")
    }
    try:
        for writer, process in processes.items():
            assert process.stdout is not None
            line = process.stdout.readline().strip()
            if line != "ready":
                _, error = process.communicate(timeout=30)
                pytest.fail(f"{writer} could not open the store: {line} {error[-2000:]}")
        for process in processes.values():
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        reports: dict[str, dict[str, Any]] = {}
        for writer, process in processes.items():
            output, error = process.communicate(timeout=120)
            if process.returncode != 0:
                pytest.fail(f"{writer} exited {process.returncode}: {error[-2000:]}")
            reports[writer] = json.loads(output.strip().splitlines()[-1])
        return reports
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
