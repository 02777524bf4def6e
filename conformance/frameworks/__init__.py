"""Adapters that drive third-party agent frameworks through the conformance suite, and
the adapter kit (`conformance.frameworks.kit`, re-exported here) any Python adapter may use.

Each framework module here imports its framework, so none is imported from this package:
load one with `--impl conformance.frameworks.<module>:implementation` after installing its extra
(`pip install "turnlaw[pydantic-ai]"`, `[openai-agents]`, `[langgraph]`). The nox
sessions `thirdparty-<module>` install the pinned framework and run the suite with the
framework's expectation manifest (expectations/<name>.toml).

Like every adapter, these translate and never repair: each maps the suite's calls onto
the framework's own API and reports what the framework did, so a law the framework
breaks fails here, and its manifest says why.
"""

from .kit import (
    Refusal,
    ServiceFailedError,
    anthropic_client,
    call_service,
    openai_client,
    openai_http,
    provider_failure,
    refusing,
    reporting_failures,
)

__all__ = [
    "Refusal",
    "ServiceFailedError",
    "anthropic_client",
    "call_service",
    "openai_client",
    "openai_http",
    "provider_failure",
    "refusing",
    "reporting_failures",
]
