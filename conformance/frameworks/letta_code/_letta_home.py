"""Where Letta Code runs: its installed Node and bundle, and an isolated HOME per store.

Letta Code keeps everything (agents, conversations, memory files, provider credentials,
settings) under `$HOME/.letta`, so the backend's store *is* a HOME: every CLI process of
one backend runs with `HOME=<store>` and a scratch working directory inside it (the CLI's
built-in tools act on their working directory; none is offered here, but nothing of the
suite's is ever in reach). The environment is built from scratch, not inherited, so a
`LETTA_API_KEY`, `LETTA_AGENT_ID` or `OPENAI_API_KEY` of the machine cannot change what
the CLI does.

Set-up is the CLI's own: `letta --backend local connect openai-compatible --base-url
<fake> --api-key <key>` (one process; `letta backend local` as a separate step would
be another CLI start, and every process passes `--backend local` anyway, the CLI's
documented one-off override). A store is connected once per base URL
and key: the adapter records, beside `.letta`, a digest of what it connected with, so a
backend opened again on the same store (the laws' "another process") does not pay for it
again, and a different fake or key connects again.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

PROVIDER = "openai-compatible"
"""The provider Letta Code calls the fake through: Chat Completions, at the base URL."""

QUIET_FLAGS = (
    "--no-skills",
    "--no-system-info-reminder",
    "--no-mods",
    "--memfs-startup",
    "skip",
    "--reflection-trigger",
    "off",
)
"""Flags that keep requests small and deterministic, each one the CLI form of an SDK
option except `--no-mods` (a fresh HOME has no mods; the flag only makes sure):
`skillSources: []`, `systemInfoReminder: false`, `memfsStartup: "skip"`,
`sleeptime: {trigger: "off"}` (without it, background reflection runs make model calls
of their own after 25 steps)."""

_CONNECTED = ".turnlaw-letta-connected.json"


class LettaNotInstalledError(RuntimeError):
    """The `letta` package (Letta Code) is not importable, or its payload is incomplete."""


class LettaSetupError(RuntimeError):
    """A set-up command of the CLI failed; the message carries its output's tail."""


@dataclass(frozen=True)
class LettaInstall:
    """The installed Letta Code: the Node binary and the bundle the `letta` launcher runs."""

    version: str
    node: Path
    cli: Path

    @classmethod
    def find(cls) -> LettaInstall:
        """The installed wheel's payload, as its own launcher (`letta_code.main`) finds it."""
        try:
            import letta_code
        except ImportError as error:
            raise LettaNotInstalledError(
                "Letta Code is not installed: pip install 'turnlaw[letta]'"
            ) from error
        from importlib.metadata import version

        payload = Path(letta_code.__file__).resolve().parent / "_payload"
        node = payload / "bin" / ("node.exe" if os.name == "nt" else "node")
        cli = payload / "app" / "letta.js"
        if not (node.is_file() and cli.is_file()):
            raise LettaNotInstalledError(f"incomplete Letta Code installation at {payload}")
        return cls(version=version("letta"), node=node, cli=cli)

    def command(self, *args: str) -> list[str]:
        """The argv the `letta` launcher would exec for `letta <args>`."""
        return [str(self.node), str(self.cli), *args]


@dataclass(frozen=True)
class LettaHome:
    """One store: `HOME` for every CLI process of a backend."""

    install: LettaInstall
    path: Path

    @property
    def workdir(self) -> Path:
        return self.path / "work"

    def environment(self) -> dict[str, str]:
        """What the CLI runs with: this HOME, the launcher's own additions (its Node first
        on PATH, `LETTA_CODE_DISTRIBUTION=pypi`), telemetry and self-update off (the
        CLI's documented switches; neither changes a request), and Node's compile cache
        in a directory of its own (V8's code cache: it shortens every start after the
        first and changes nothing the bundle does)."""
        env = {
            key: value
            for key, value in os.environ.items()
            if key in ("PATH", "LANG", "LC_ALL", "TZ", "TMPDIR", "SYSTEMROOT")
        }
        env.update(
            HOME=str(self.path),
            PATH=os.pathsep.join([str(self.install.node.parent), env.get("PATH", "")]),
            LETTA_CODE_DISTRIBUTION="pypi",
            LETTA_CODE_TELEM="0",
            DO_NOT_TRACK="1",
            DISABLE_AUTOUPDATER="1",
            NODE_COMPILE_CACHE=str(_compile_cache()),
        )
        return env

    def _connected_with(self, base_url: str, api_key: str) -> str:
        digest = hashlib.sha256(f"{base_url}\n{api_key}".encode()).hexdigest()
        return json.dumps({"provider": PROVIDER, "digest": digest, "cli": self.install.version})

    async def connect(self, base_url: str, api_key: str) -> bool:
        """Connect the store to the fake (once per base URL and key); True when it ran."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        marker = self.path / _CONNECTED
        wanted = self._connected_with(base_url, api_key)
        if marker.is_file() and marker.read_text(encoding="utf-8") == wanted:
            return False
        await self.run(
            "--backend", "local", "connect", PROVIDER, "--base-url", base_url, "--api-key", api_key
        )
        marker.write_text(wanted, encoding="utf-8")
        return True

    async def run(self, *args: str, timeout: float = 120.0) -> str:
        """One CLI command to completion (its stdout); `LettaSetupError` if it fails."""
        process = await asyncio.create_subprocess_exec(
            *self.install.command(*args),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=self.workdir,
            env=self.environment(),
            start_new_session=True,
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(), timeout)
        except BaseException:
            if process.returncode is None:
                process.kill()
                await process.wait()
            raise
        if process.returncode != 0:
            tail = (out + err).decode("utf-8", "replace")[-1500:]
            raise LettaSetupError(f"letta {args[2] if len(args) > 2 else args[0]} failed: {tail}")
        return out.decode("utf-8", "replace")


def _compile_cache() -> Path:
    return Path(tempfile.gettempdir()) / f"turnlaw-letta-node-cache-{os.getuid()}"


__all__ = [
    "PROVIDER",
    "QUIET_FLAGS",
    "LettaHome",
    "LettaInstall",
    "LettaNotInstalledError",
    "LettaSetupError",
]
