"""What the OpenAI provider modules share: argument decoding, and the client set-up."""

from __future__ import annotations

import ssl

import openai

from ._arguments import encode_arguments, parse_arguments

__all__ = ["OpenAIBackedProvider", "encode_arguments", "parse_arguments"]


class OpenAIBackedProvider:
    """The construction both OpenAI APIs share: one SDK client, streaming by default."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        stream: bool = True,
        max_retries: int = 2,
        client: openai.AsyncOpenAI | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        """`client` is a ready SDK client (its own settings win); otherwise one is built
        for `base_url`, verifying TLS with `tls` (None: the SDK's default context)."""
        self.stream = stream
        self.client = client or openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key,
            max_retries=max_retries,
            http_client=None if tls is None else openai.DefaultAsyncHttpxClient(verify=tls),
        )
