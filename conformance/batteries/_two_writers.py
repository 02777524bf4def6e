"""Two real processes writing one store at once: the battery's split-brain check.

Each writer opens its own store on the same path, says `ready`, waits for `go` on its
stdin (so both are open before either writes: a store that reads its file once at open
and writes it all back is caught too), then interleaves saves to its own sessions, to
sessions both write, and claims on sessions both try to own. It prints one JSON line
of what it did; the battery then reads the store and checks that every count adds up.

Run as `python -m conformance.batteries._two_writers SPEC PATH WRITER WRITES CLAIMS`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ._race_plan import write
from ._store_protocol import SessionStoreLike, import_spec


def main(argv: list[str]) -> int:
    spec, path, writer, writes, claims = argv
    factory = import_spec(spec)
    if not callable(factory):
        raise TypeError(f"{spec} is not callable")
    store: SessionStoreLike = factory(Path(path))
    try:
        print("ready", flush=True)
        if sys.stdin.readline().strip() != "go":
            return 2
        report = write(store, writer, int(writes), int(claims))
    finally:
        store.close()
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
