"""The steady production mix of scripts/soak/soak.py: what each client thread sends, and how every
outcome is counted.

Kinds of call (weights in ``MIX``): ``unary`` Translate, ``stream`` TranslateStream read to its
end, ``batch`` TranslateBatch of 2 to 8 texts, ``long`` a Translate of a multi-paragraph text
(a few hundred words with newlines, that the server segments), ``cancel`` a stream left after
its first token (the client cancels the RPC), ``deadline`` a Translate with a 2 ms deadline
that no translation can meet.

What each outcome means is decided here (``classify``): OK is always expected, CANCELLED only
for ``cancel``, DEADLINE_EXCEEDED only for ``deadline``, RESOURCE_EXHAUSTED is kept apart (the
caller decides whether it fell in a flood burst), anything else is unexpected. Every call is
recorded with its start and end (wall clock), so that failures can be set against the bursts and
restarts afterwards. What it does not know: which replica answered a call.
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from collections import Counter

from traductor_client import DeadlineExceeded, RetryPolicy, TranslatorClient, TranslatorError

SHORT_TEXTS = [
    "File not found",
    "Permission denied",
    "Could not open %s for writing",
    "Save changes before closing?",
    "The connection was reset by the peer.",
    "Delete %d files?",
    "uno dos tres",
    "cuatro cinco seis siete",
    "An unexpected error occurred while reading the configuration file.",
    "Cancel",
]

# Written for this script: the kind of notice a program prints, several paragraphs with newlines.
LONG_TEXTS = [
    """This program comes with a manual that explains every option in detail.
Before you install it, make sure that you have enough free space on the disk. The installer checks the space it needs and stops if there is not enough. It also checks that the target folder is writable.

If the installation fails, read the log file in your home folder. The log lists every step that was taken and the error that stopped it. You can send the log to the developers when you report a problem.

The settings are stored in a configuration file. You can edit this file with any text editor, but the program must not be running while you do it. When the program starts again, it reads the new settings. Unknown settings are ignored and a warning is printed.

To remove the program, use the uninstall command. Your documents are not deleted. The configuration file and the cache are kept unless you ask for them to be removed as well.""",  # noqa: E501
    """Warning: the disk is almost full.
Only a few megabytes are left on the device that holds your home folder. Some programs may stop working or lose data when they cannot write their files. Close the programs you do not need and delete the files you no longer use.

You can empty the trash to free space at once. Old backups and downloaded packages often take a lot of space as well. The disk usage analyzer shows which folders are the largest.

This message will be shown again when the free space drops below the limit. You can change the limit in the settings, or turn the warning off. Turning it off is not recommended.

Press Continue to open the disk usage analyzer, or Cancel to close this window.""",  # noqa: E501
    """A new version is available.
The update fixes several problems that were reported by users. Files with long names are now copied correctly. The window no longer closes when a network folder is not available. Printing from the preview works again.

The update will be downloaded in the background. You can keep working while it is downloaded. When the download is complete, you will be asked to restart the program. Unsaved changes are kept when the program restarts.

If you do not want automatic updates, open the preferences and select the option to check for updates manually. You can also choose how often the program looks for a new version.""",  # noqa: E501
]

MIX = {"unary": 0.33, "stream": 0.25, "batch": 0.10, "long": 0.06, "cancel": 0.13, "deadline": 0.13}
EXPECTED_ERROR = {"cancel": "CANCELLED", "deadline": "DEADLINE_EXCEEDED"}


class Cancelled(Exception):
    """The deliberate cancellation of a ``cancel`` call (the client left the stream)."""


def classify(kind: str, code: str) -> str:
    """expected, refused (RESOURCE_EXHAUSTED) or unexpected."""
    if code == "OK" or EXPECTED_ERROR.get(kind) == code:
        return "expected"
    if code == "RESOURCE_EXHAUSTED":
        return "refused"
    return "unexpected"


class Mix:
    """Worker threads sending the mix; their calls, counts and latencies."""

    def __init__(self, target: str, workers: int, seed: int, retry: RetryPolicy, max_new_tokens: int):
        self.target, self.workers = target, workers
        self.retry = retry if retry.max_attempts == 1 else dataclasses.replace(retry, on_retry=self.count_retry)
        self.short, self.long = list(SHORT_TEXTS), list(LONG_TEXTS)
        self.tokens = min(60, max_new_tokens)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = {}  # kind -> seconds, OK calls of the current interval
        self.counts: Counter = Counter()  # (kind, code)
        self.odd: list[dict] = []  # every call that was not "expected": kind, code, start, end, details
        self.retries: Counter = Counter()  # code -> retries the client library made after it
        self.seed = seed
        self.threads: list[threading.Thread] = []

    def call(self, client: TranslatorClient, kind: str, rng: random.Random) -> None:
        text = rng.choice(self.short)
        if kind == "unary":
            client.translate(text)
        elif kind == "stream":
            list(client.stream_events(text))
        elif kind == "batch":
            client.translate_batch(rng.sample(self.short, rng.randint(2, min(8, len(self.short)))))
        elif kind == "long":
            client.translate(rng.choice(self.long), timeout=60)
        elif kind == "cancel":  # leave after the first token: the client cancels the RPC
            for _ in client.stream_events(text, min_new_tokens=self.tokens // 2, max_new_tokens=self.tokens):
                break
            raise Cancelled()  # counted as the deliberate CANCELLED
        else:  # a deadline no translation can meet
            client.translate(text, min_new_tokens=self.tokens, max_new_tokens=self.tokens, timeout=0.002)

    def one(self, client: TranslatorClient, rng: random.Random) -> None:
        kind = rng.choices(list(MIX), list(MIX.values()))[0]
        start, details = time.time(), ""
        try:
            self.call(client, kind, rng)
            code = "OK"
        except Cancelled:
            code = "CANCELLED"
        except DeadlineExceeded:
            code = "DEADLINE_EXCEEDED"
        except TranslatorError as e:
            code, details = e.code_name, e.details
        except Exception as e:  # noqa: BLE001 - a soak run reports, it does not crash
            code, details = type(e).__name__, str(e)
        end = time.time()
        verdict = classify(kind, code)
        with self.lock:
            self.counts[(kind, code)] += 1
            if code == "OK":
                self.latencies.setdefault(kind, []).append(end - start)
            if verdict != "expected":
                self.odd.append(
                    {
                        "kind": kind,
                        "code": code,
                        "verdict": verdict,
                        "start": start,
                        "end": end,
                        "details": details[:200],
                    }
                )

    def count_retry(self, attempt: int, error: TranslatorError, delay: float) -> None:
        with self.lock:
            self.retries[error.code_name] += 1

    def worker(self, index: int) -> None:
        rng = random.Random(self.seed * 1000 + index)
        with TranslatorClient(self.target, retry=self.retry, timeout=30) as client:
            while not self.stop.is_set():
                self.one(client, rng)

    def start(self) -> None:
        self.threads = [threading.Thread(target=self.worker, args=(i,), daemon=True) for i in range(self.workers)]
        for t in self.threads:
            t.start()

    def finish(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(90)

    def take_latencies(self) -> dict[str, list[float]]:
        with self.lock:
            taken, self.latencies = self.latencies, {}
        return taken
