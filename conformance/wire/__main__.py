"""`python -m conformance.wire serve --script FILE`: the fake provider for any language.

`python -m conformance.wire schema script-file|wire-log` prints a file format's JSON Schema.

Prints the base URL as the first line of stdout (so a harness can read it), serves
until interrupted, then prints the provider's findings to stderr and exits 1 if there
were any — the same strictness the pytest fixtures apply.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path

from .loopback import ProviderApp, bind_loopback, make_server
from .provider import ScriptedProvider
from .script import ScriptFileError, load_script_file, script_file_schema
from .wirelog import wire_log_schema

SCHEMAS = {"script-file": script_file_schema, "wire-log": wire_log_schema}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.wire")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve a scripted fake provider on 127.0.0.1")
    serve.add_argument("--script", required=True, type=Path, help="script file (JSON)")
    serve.add_argument("--port", type=int, default=0, help="port (default: an ephemeral one)")
    serve.add_argument("--log", type=Path, help="write the wire log export here on exit")
    serve.add_argument("--no-invariants", action="store_true", help="do not check wire invariants")
    schema = commands.add_parser("schema", help="print a file format's JSON Schema")
    schema.add_argument("format", choices=sorted(SCHEMAS), help="which file format")
    args = parser.parse_args(argv)
    if args.command == "schema":
        print(json.dumps(SCHEMAS[args.format](), indent=2))
        return 0

    try:
        script = load_script_file(args.script)
    except ScriptFileError as error:
        print(error, file=sys.stderr)
        return 2
    if args.log is not None:
        try:  # find out now, not after serving, that the log cannot be written
            args.log.write_text("[]\n", encoding="utf-8")
        except OSError as error:
            print(f"turnlaw: cannot write the log to {args.log}: {error}", file=sys.stderr)
            return 2
    provider = ScriptedProvider(check_invariants=not args.no_invariants)
    provider.load(script)
    # SIGTERM (what CI, Popen.terminate and process managers send) stops like Ctrl-C:
    # uvicorn re-raises the signal after shutting down, and this turns it into the
    # KeyboardInterrupt below instead of a death that loses the log and the findings.
    signal.signal(signal.SIGTERM, _interrupt)

    sock = bind_loopback(port=args.port)
    host, port = sock.getsockname()[:2]
    provider.base_url = f"http://{host}:{port}/v1"
    print(provider.base_url, flush=True)
    server = make_server(ProviderApp(provider), log_level="warning")
    try:
        asyncio.run(server.serve(sockets=[sock]))
    except KeyboardInterrupt:
        pass
    finally:
        provider.release_all()
        sock.close()

    findings = provider.findings
    print(f"turnlaw: served {len(provider.wire)} request(s)", file=sys.stderr)
    for finding in findings:
        print(f"turnlaw: [{finding.kind}] {finding.message}", file=sys.stderr)
    if args.log is not None:
        args.log.write_text(provider.wire.export(), encoding="utf-8")
    return 1 if findings else 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    raise SystemExit(main())
