"""The law tests, one module per family. Each test is marked with the law ids it checks
and asserts on what the fake provider recorded. Run them with `nox -s conformance`."""
