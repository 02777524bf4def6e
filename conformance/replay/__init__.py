"""Repro files: store a failing law test and replay it against any implementation."""
