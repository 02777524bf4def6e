"""turnlaw's conformance package: the fake provider (`conformance.wire`) and, later, the laws."""

__version__ = "0.1.0"
