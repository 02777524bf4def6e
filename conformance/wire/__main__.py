"""`python -m conformance.wire serve --script FILE`: the fake provider for any language.

`python -m conformance.wire schema script-file|wire-log` prints a file format's JSON Schema.

Prints the base URL as the first line of stdout (so a harness can read it), serves
until interrupted, then prints the provider's findings to stderr and exits 1 if there
were any — the same strictness the pytest fixtures apply. Exit 2: it could not start
(bad script, bad option, port taken, log not writable) or could not write the log.
`--log FILE` is written as it happens (JSON Lines, one ExchangeRecord per line), so a
killed server loses at most the requests in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .loopback import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_HEADER_TIMEOUT,
    DEFAULT_IDLE_TIMEOUT,
    ProviderApp,
    bind_loopback,
    make_server,
    serve_quietly,
)
from .provider import DEFAULT_MAX_BODY, ScriptedProvider
from .script import ScriptFileError, load_script_file, script_file_schema
from .wirelog import wire_log_schema

SCHEMAS = {"script-file": script_file_schema, "wire-log": wire_log_schema}
MAX_SECONDS = 24 * 3600.0
_N = TypeVar("_N", int, float)


def _number(text: str, parse: Callable[[str], _N], noun: str) -> _N:
    """`text` as read by `parse`; an option that is no number at all says which it wanted."""
    try:
        return parse(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {noun}: {text!r}") from None


def _port(text: str) -> int:
    port = _number(text, int, "a port number")
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0..65535 (0: any free one), not {port}")
    return port


def _byte_count(text: str) -> int:
    count = _number(text, int, "a whole number of bytes")
    if not 0 <= count <= 1 << 40:
        raise argparse.ArgumentTypeError(f"a byte count is 0..{1 << 40}, not {count}")
    return count


def _seconds(text: str) -> float:
    seconds = _number(text, float, "a number of seconds")
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
        raise argparse.ArgumentTypeError(f"seconds must be > 0 and <= {MAX_SECONDS:g}: {text!r}")
    return seconds


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m conformance.wire")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve a scripted fake provider on 127.0.0.1")
    serve.add_argument("--script", required=True, type=Path, help="script file (JSON)")
    serve.add_argument("--port", type=_port, default=0, help="port (default: an ephemeral one)")
    serve.add_argument(
        "--log", type=Path, help="write the wire log here as it happens (JSON Lines)"
    )
    serve.add_argument("--no-invariants", action="store_true", help="do not check wire invariants")
    serve.add_argument(
        "--max-body",
        type=_byte_count,
        default=DEFAULT_MAX_BODY,
        help=f"largest request body in bytes; larger is a 413 (default {DEFAULT_MAX_BODY})",
    )
    for name, default, what in (
        ("--header-timeout", DEFAULT_HEADER_TIMEOUT, "for a request's headers to arrive"),
        ("--body-timeout", DEFAULT_BODY_TIMEOUT, "for a request's body to arrive"),
        ("--idle-timeout", DEFAULT_IDLE_TIMEOUT, "before an idle connection is closed"),
    ):
        serve.add_argument(
            name, type=_seconds, default=default, help=f"seconds {what} (default {default:g})"
        )
    schema = commands.add_parser("schema", help="print a file format's JSON Schema")
    schema.add_argument("format", choices=sorted(SCHEMAS), help="which file format")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "schema":
        print(json.dumps(SCHEMAS[args.format](), indent=2))
        return 0

    try:
        script = load_script_file(args.script)
    except ScriptFileError as error:
        print(error, file=sys.stderr)
        return 2
    provider = ScriptedProvider(check_invariants=not args.no_invariants, max_body=args.max_body)
    try:
        provider.load(script)
    except ValueError as error:  # what the file model cannot see on its own
        print(f"turnlaw: {args.script}: {error}", file=sys.stderr)
        return 2
    try:
        sock = bind_loopback(port=args.port)
    except OSError as error:
        print(f"turnlaw: cannot listen on 127.0.0.1:{args.port}: {error}", file=sys.stderr)
        return 2
    host, port = sock.getsockname()[:2]
    provider.base_url = f"http://{host}:{port}/v1"
    if args.log is not None:
        try:  # find out now, not after serving, that the log cannot be written
            provider.wire.stream_to(args.log)
        except OSError as error:
            sock.close()
            print(f"turnlaw: cannot write the log to {args.log}: {error}", file=sys.stderr)
            return 2
    # SIGTERM (what CI, Popen.terminate and process managers send) stops like Ctrl-C:
    # uvicorn re-raises the signal after shutting down, and this turns it into the
    # KeyboardInterrupt below instead of a death that loses the findings.
    signal.signal(signal.SIGTERM, _interrupt)
    # The imports and the script live as long as the process: out of the collector's
    # sight, a full collection no longer walks every step of a long script (and a
    # benchmark's script holds one per request sent).
    gc.collect()
    gc.freeze()
    print(provider.base_url, flush=True)
    app = ProviderApp(provider, max_body=args.max_body, body_timeout=args.body_timeout)
    server = make_server(
        app, log_level="warning", header_timeout=args.header_timeout, idle_timeout=args.idle_timeout
    )
    try:
        asyncio.run(serve_quietly(server, sock))
    except KeyboardInterrupt:
        pass
    finally:
        provider.release_all()
        sock.close()
        log_error = provider.wire.close_stream()

    findings = provider.findings
    print(f"turnlaw: served {len(provider.wire)} request(s)", file=sys.stderr)
    for finding in findings:
        print(f"turnlaw: [{finding.kind}] {finding.message}", file=sys.stderr)
    if log_error is not None:
        print(f"turnlaw: the log {args.log} is incomplete: {log_error}", file=sys.stderr)
        return 2
    return 1 if findings else 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    raise SystemExit(main())
