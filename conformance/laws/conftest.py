"""Shared vocabulary for the law tests: messages from the seed's walkthroughs."""

from __future__ import annotations

BOOK = "Book me a table for two on Friday."
THREE = "Make it three."
SYSTEM = "You take restaurant bookings. Be brief."
