"""The load generator behind ``traductor-client loadtest``.

Modules: ``stats`` (pure percentile and rate arithmetic), ``inputs`` (sentences to send),
``runner`` (closed- and open-loop drivers on asyncio), ``summary`` (samples -> per-level
figures), ``report`` (table and JSON), ``plot`` (optional matplotlib chart), ``progress``
(the live stderr line) and ``command`` (the CLI subcommand).
"""
