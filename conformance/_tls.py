"""One TLS context for every HTTP client the suite and the reference build.

Building a client's default context loads the CA certificates again, for every client,
and a run builds thousands (an SDK client per agent, a client per tool call, one per
hosted conversation). It is the default context, verifying as each client's own would;
the fake and the hosts are plain HTTP on 127.0.0.1 anyway.
"""

from __future__ import annotations

import ssl

SHARED_TLS = ssl.create_default_context()
