"""A killable session runtime as the suite starts it: the runtime's own command line
(`python -m reference_impl.sessions serve ...`) with the suite's server and TLS context.

    python -m reference_impl.adapter._sessions_server serve --store DIR --provider-url URL

`PromptServer` stops as soon as it is told to and leaves signal handling to the command
line; `SHARED_TLS` is one TLS context for every client the suite builds. Both are the
suite's, so the runtime's own command line takes them as arguments and never imports them.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance._prompt_server import PromptServer
from conformance._tls import SHARED_TLS

from ..sessions.__main__ import main as runtime_main


def main(argv: Sequence[str] | None = None) -> int:
    return runtime_main(argv, server_class=PromptServer, tls=SHARED_TLS)


if __name__ == "__main__":
    raise SystemExit(main())
