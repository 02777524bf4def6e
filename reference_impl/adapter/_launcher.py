"""Start the reference's server processes (hosts, killable session runtimes) by forking a
warm launcher instead of starting a new interpreter for each.

A host is started once per hosting law test, several times with restarts, and a fresh
`python -m reference_impl.adapter._host_server` spends most of its start importing what it
serves with (the SDKs, Starlette, uvicorn, pydantic models). The launcher imports all of
that once and forks a child per start. The child is still a real process of its own, with
its own pid, stdout and stderr, that the suite SIGKILLs for real: only the interpreter
start and the imports are shared, copy-on-write.

Linux only (the child is handled through a pidfd, so a signal can never reach a reused
pid); elsewhere, or with `TURNLAW_FORK_LAUNCH=0`, `spawn` starts `python -m <module>` as
before. The launcher runs only the entry points listed in `ENTRIES`: a request names one
of them, never code to run.

    python -m reference_impl.adapter._launcher FD    (started by `spawn`, never by hand)
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from ._sdk_warmup import warm_up

ENTRIES: dict[str, str] = {
    "reference_impl.adapter._host_server": "reference_impl.adapter._host_server:main",
    "reference_impl.adapter._sessions_server": "reference_impl.adapter._sessions_server:main",
}
"""What a child may run: `python -m <module>`'s own `main(argv)`, and nothing else."""

PRELOAD = (
    "reference_impl.adapter._host_server",
    "reference_impl.adapter._sessions_server",
    "reference_impl.adapter._spec_agent",
    "reference_impl._sqlite_memory",
    "reference_impl.hosting",
    "reference_impl.store",
    "reference_impl.providers.openai_chat",
    "reference_impl.providers.openai_responses",
    "reference_impl.providers.anthropic_messages",
    "conformance.adapter._hosting_types",
    "conformance._prompt_server",
    "uvicorn",
    # what uvicorn and httpx2 import only once a server starts or a client connects
    "uvicorn.lifespan.off",
    "uvicorn.protocols.http.h11_impl",
    "uvicorn.protocols.websockets.websockets_sansio_impl",
    "httpcore2",
)
"""Imported by the launcher before its first fork: what the entries import when they run."""

REPLY_DEADLINE = 30.0
"""Seconds the launcher may take to answer a start (a fork takes milliseconds)."""

_ENABLED = sys.platform == "linux" and os.environ.get("TURNLAW_FORK_LAUNCH", "1") != "0"


class ServerProcess(Protocol):
    """What the adapters use of a started process: asyncio's `Process` has it too."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    stdout: asyncio.StreamReader | None

    def kill(self) -> None: ...

    def send_signal(self, sig: int) -> None: ...

    async def wait(self) -> int | None: ...


async def spawn(
    module: str, argv: Sequence[str], *, env: dict[str, str], stderr: Path
) -> ServerProcess:
    """Start `python -m <module> <argv>` with `env`, stdout a pipe, stderr into the file:
    forked from the warm launcher where it can be, else a new interpreter."""
    if _ENABLED and module in ENTRIES:
        launcher = _Launcher.shared()
        if launcher is not None:
            try:
                return await launcher.start(module, argv, env, stderr)
            except LauncherUnusableError:
                pass  # dropped; this start is made the slow way, the next by a new one
    with stderr.open("wb") as log:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            module,
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
            env=env,
        )


class LaunchedProcess:
    """A child of the launcher, held through its pidfd: signals go to that process and
    no other. Its parent, the launcher, reaps it and writes its exit status (as asyncio
    reports one: -9 for SIGKILL) down a pipe held for it alone; should the launcher be
    gone, the pidfd tells when the child has exited, and `returncode` is -1."""

    def __init__(
        self,
        pid: int,
        pidfd: int,
        status: int,
        stdout: asyncio.StreamReader,
        pipe: asyncio.BaseTransport,
    ) -> None:
        self.pid = pid
        self._pidfd = pidfd
        self._status = status
        self.stdout: asyncio.StreamReader | None = stdout
        self._pipe = pipe
        self._returncode: int | None = None
        self._waiting: asyncio.Future[int | None] | None = None

    @property
    def returncode(self) -> int | None:
        return self._returncode

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def send_signal(self, sig: int) -> None:
        if self._returncode is not None:
            raise ProcessLookupError(self.pid)
        signal.pidfd_send_signal(self._pidfd, sig)

    async def wait(self) -> int | None:
        """Until it has exited: its exit status. Any number of callers may wait."""
        if self._waiting is None:
            self._waiting = asyncio.ensure_future(self._wait_once())
        return await asyncio.shield(self._waiting)

    async def _wait_once(self) -> int | None:
        if self._returncode is None:
            said = await _readable_then(self._status, lambda: os.read(self._status, 64))
            if not said:  # the launcher is gone before it could say: wait for the child
                await _readable_then(self._pidfd, lambda: b"")
            for fd in (self._status, self._pidfd):
                os.close(fd)
            self._pipe.close()  # what it printed after its URL is not read
            self._returncode = int(said) if said.lstrip(b"-").isdigit() else -1
        return self._returncode


async def _readable_then(fd: int, read: Callable[[], bytes]) -> bytes:
    """Wait until `fd` is readable, then `read()`."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await ready
    finally:
        loop.remove_reader(fd)
    return read()


class LauncherUnusableError(OSError):
    """The launcher died, timed out or answered out of turn: it is dropped, and the start
    is made again by a new interpreter."""


class _Launcher:
    """The suite's end: one warm launcher per process, started on first use. Any doubt
    about it (an error on its socket, a late reply) drops it, so a reply can never be
    taken for another start's; the next start gets a new launcher."""

    _shared: _Launcher | None = None
    _failures = 0
    _guard = threading.Lock()

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self.log = Path(tempfile.mkstemp(prefix="turnlaw-launcher-", suffix=".log")[1])
        with theirs, self.log.open("wb") as log:  # its own errors: not a test's capture
            self.process = subprocess.Popen(
                [sys.executable, "-m", "reference_impl.adapter._launcher", str(theirs.fileno())],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                env=env,
            )
        ours.settimeout(REPLY_DEADLINE)
        self.control = ours
        self.lock = threading.Lock()
        self.asked = 0

    @classmethod
    def shared(cls) -> _Launcher | None:
        """The running launcher (None after three have failed: `spawn` execs)."""
        with cls._guard:
            if cls._shared is None and cls._failures < 3:
                try:
                    cls._shared = cls()
                except OSError:
                    cls._failures = 3
            return cls._shared

    def drop(self) -> None:
        """Stop using this launcher: close its socket (it exits at EOF), reap it."""
        with _Launcher._guard:
            if _Launcher._shared is self:
                _Launcher._shared = None
                _Launcher._failures += 1
        self.control.close()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait(5)
        self.log.unlink(missing_ok=True)

    async def start(
        self, module: str, argv: Sequence[str], env: dict[str, str], stderr: Path
    ) -> LaunchedProcess:
        read_end, write_end = os.pipe()
        log = os.open(stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        # the thread owns write_end and log (it closes them): a cancelled start must not
        # close descriptors the thread is about to send
        asking = asyncio.ensure_future(
            asyncio.to_thread(self._ask, module, list(argv), env, write_end, log)
        )
        try:
            pid, pidfd, status = await asyncio.shield(asking)
        except asyncio.CancelledError:  # the caller gave up: leave no process
            os.close(read_end)
            with contextlib.suppress(Exception):
                _, pidfd, status = await asking
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                os.close(pidfd)
                os.close(status)
            raise
        except BaseException:
            os.close(read_end)
            raise
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        pipe, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_end, "rb", 0)
        )
        return LaunchedProcess(pid, pidfd, status, reader, pipe)

    def _ask(
        self, module: str, argv: list[str], env: dict[str, str], stdout: int, stderr: int
    ) -> tuple[int, int, int]:
        try:
            with self.lock:
                self.asked += 1
                request = {"id": self.asked, "module": module, "argv": argv, "env": env}
                try:
                    socket.send_fds(self.control, [json.dumps(request).encode()], [stdout, stderr])
                    reply, fds, _, _ = socket.recv_fds(self.control, 65536, 2)
                except OSError as error:  # a timeout, a dead launcher: never ask it again
                    self.drop()
                    raise LauncherUnusableError(f"the launcher failed: {error!r}") from error
        finally:  # the child has its own copies (or there is no child)
            os.close(stdout)
            os.close(stderr)
        answer = json.loads(reply) if reply else {}
        if answer.get("id") != request["id"] or ("error" not in answer and len(fds) != 2):
            for fd in fds:
                os.close(fd)
            self.drop()
            raise LauncherUnusableError(f"the launcher answered {reply[:200]!r} out of turn")
        if "error" in answer:
            for fd in fds:
                os.close(fd)
            raise OSError(f"the launcher could not start {module}: {answer['error']}")
        pidfd, status = fds
        return int(answer["pid"]), pidfd, status


def exit_words(process: ServerProcess) -> str:
    """'it exited (N)', with N only where the exit status is known (-1: the launcher was
    gone before it could say)."""
    code = process.returncode
    return "it exited" if code is None or code == -1 else f"it exited ({code})"


# -- the launcher process -----------------------------------------------------------------


def _entry(module: str) -> Callable[[list[str]], Any]:
    path, _, name = ENTRIES[module].partition(":")
    entry: Callable[[list[str]], Any] = getattr(importlib.import_module(path), name)
    return entry


_STATUS: dict[int, int] = {}
"""pid -> the write end of its status pipe, held by the launcher until it reaps the pid."""


def _reap(signum: int, frame: object) -> None:
    """Collect exited children and write each one's exit status down its pipe."""
    with contextlib.suppress(ChildProcessError):
        while True:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                return
            fd = _STATUS.pop(pid, None)
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.write(fd, str(os.waitstatus_to_exitcode(status)).encode())
                os.close(fd)


def _run_child(request: dict[str, Any], stdout: int, stderr: int) -> int:
    """In the forked child: become `python -m <module> <argv>` as far as it can tell."""
    for fd in _STATUS.values():  # the other children's: theirs to end, not ours to hold
        os.close(fd)
    _STATUS.clear()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(stdout, 1)
    os.dup2(stderr, 2)
    for fd in (devnull, stdout, stderr):
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    module, argv = str(request["module"]), [str(a) for a in request["argv"]]
    sys.argv = [module, *argv]
    try:
        code = _entry(module)(argv)
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 1
    return int(code or 0)


def _serve(control: socket.socket) -> None:
    for name in PRELOAD:  # a module that does not import fails in the child, as it would
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    warm_up()  # what the SDKs build on first use, built once for every child
    signal.signal(signal.SIGCHLD, _reap)
    while True:
        message, fds, _, _ = socket.recv_fds(control, 1 << 20, 2)
        if not message:
            return  # the suite closed its end (or exited): nothing more to start
        request: Any = None
        try:
            request = json.loads(message)
            if not isinstance(request, dict) or request.get("module") not in ENTRIES:
                raise ValueError(f"not a start request: {str(request)[:200]}")
            if len(fds) != 2:
                raise ValueError("a start request carries its stdout and stderr")
        except ValueError as error:
            for fd in fds:
                os.close(fd)
            asked = request.get("id") if isinstance(request, dict) else None
            control.send(json.dumps({"id": asked, "error": str(error)}).encode())
            continue
        try:
            pid, pidfd, status_read = _fork_child(control, request, fds)
        except OSError as error:  # no fork (memory, process limit), no pidfd: said, not fatal
            control.send(json.dumps({"id": request.get("id"), "error": repr(error)}).encode())
            continue
        finally:
            for fd in fds:
                os.close(fd)
        reply = json.dumps({"id": request.get("id"), "pid": pid}).encode()
        socket.send_fds(control, [reply], [pidfd, status_read])
        os.close(pidfd)
        os.close(status_read)


def _fork_child(
    control: socket.socket, request: dict[str, Any], fds: list[int]
) -> tuple[int, int, int]:
    """Fork the child for `request`: its pid, a pidfd for it, its status pipe's read end."""
    status_read, status_write = os.pipe()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # reaped once registered
    try:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                control.close()
                os.close(status_read)
                os.close(status_write)
                code = _run_child(request, *fds)
            finally:
                with contextlib.suppress(Exception):
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(code)
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            os.kill(pid, signal.SIGKILL)  # not yet reaped (SIGCHLD is blocked): ours
            raise
        _STATUS[pid] = status_write
    except OSError:
        os.close(status_read)
        os.close(status_write)
        raise
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    return pid, pidfd, status_read


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or not args[0].isdigit():
        print(
            "usage: python -m reference_impl.adapter._launcher FD (started by spawn())",
            file=sys.stderr,
        )
        return 2
    with socket.socket(fileno=int(args[0])) as control:
        _serve(control)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
