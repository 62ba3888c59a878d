"""The service tests' names for the one server harness (tests/server_harness.py)."""

from server_harness import WAIT, Gate, ServerThread, free_port, make_settings, translate_request, wait_for

__all__ = ["WAIT", "Gate", "ServerThread", "free_port", "make_settings", "translate_request", "wait_for"]
