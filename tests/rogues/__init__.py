"""The rogues' gallery: runtimes that break one law each, and the kill matrix.

Every rogue is the reference runtime with one small, named change: a subclass of its
`Agent` overriding one seam (docs/reference.md, "The seams"), or of its `TurnLoop`
swapped in through `Agent.turn_loop`; of its host's `StandingAgent` ("The hosting
seams"); of its `SessionRuntime` ("The session seams"), or of the session runtime's
client (`SessionClient.session_class`, a `Session` overriding one of its seams). It is
tested through the reference's own adapter, unchanged: whatever a rogue gets wrong, it
gets wrong on the wire.
"""
