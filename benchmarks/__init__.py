"""Benchmarks: what the turnlaw fake provider costs, next to a bare baseline doing nothing.

Run `python -m benchmarks` (or `--quick`). Three figures, each measured twice in the same
run — once against turnlaw, once against a baseline that returns a constant body:

- in-process, through the official openai SDK: microseconds per non-streaming
  `chat.completions.create` with `InProcess(ScriptedProvider(...))` vs a bare respx route;
- in-process, through a raw `httpx.AsyncClient().post(...)`: the same two, without the SDK,
  so the fake's own share of the cost is not diluted by the SDK's;
- loopback: requests per second of `python -m conformance.wire serve` vs a hello-world ASGI
  app on the same uvicorn stack, driven by a cheap keep-alive raw-socket load generator.

Then the reference host's rows (`benchmarks.hosting`, `benchmarks.durability`,
`benchmarks.flooding`): a hosted turn against a direct `continue_from` run plus its save,
the suite's memory peak against a flooding host, and completed turns lost over N SIGKILLs
of the host mid-turn (printed, never asserted).

A row stays only while a design choice depends on it (a target it must meet, or two ways
of doing one thing compared); the suite's own rows are `benchmarks.conformance_run`.

Why ratios and not absolute numbers: absolute figures depend on the machine, its load and
the Python build, and mean little on their own. The ratio turnlaw/bare says what the fake
adds on top of the transport it rides on, and it stays meaningful across machines because
both variants are measured side by side in alternating rounds (so noise hits both alike)
and the median round is reported. The targets are guidance printed next to the figures;
nothing here asserts on timings. What *is* checked, loudly, is that each variant got its
answer from the intended mock, so a mis-wired benchmark cannot quietly time an error.
"""
