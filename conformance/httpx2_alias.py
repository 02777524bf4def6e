"""Make `import httpx` resolve to `httpx2`, for respx to see what openai>=3 sends.

Load it as an early pytest plugin, before respx's own plugin imports httpx:

    pytest -p conformance.httpx2_alias

turnlaw's in-process transport works without it (it patches httpx2 clients itself);
load it when your own tests use respx directly against the official SDKs.
"""

import sys

import httpx2

if sys.modules.get("httpx") is not httpx2:
    if "httpx" in sys.modules:
        raise RuntimeError(
            "conformance.httpx2_alias was loaded after httpx was imported; load it first "
            "(pytest -p conformance.httpx2_alias) or run pytest with -p no:respx"
        )
    httpx2.alias_httpx()
