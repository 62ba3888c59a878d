"""What the HTTP APIs say about a translation beside its text: whether it was cut short and how much
to trust it, for the text and for each of its segments (docs/http-api.md, docs/deepl-api.md,
docs/confidence.md). Neither LibreTranslate nor DeepL has these: they are extra keys, which
their clients ignore.

    libre(event)     LibreTranslate's spelling: finish, cutShort, confidence, lowConfidence,
                     segments [{source, translatedText, finish, cutShort, confidence, lowConfidence,
                     markupUnsure, failedChecks}]
    deepl(event)     DeepL's: finish_reason, cut_short, confidence, low_confidence,
                     segments [{source, text, finish_reason, cut_short, confidence, low_confidence,
                     markup_unsure, failed_checks}]

A text's `cutShort` and `lowConfidence` are true when one of its segments' is; its confidence is
the lowest of its segments' (engine/confidence.py: the threshold `LOW`). A segment's `markupUnsure`
says that an inline element of it may wrap the wrong words (service/pipeline/restore.py), its `failedChecks` which
checks of the output against its source it failed (service/pipeline/verify.py). This module reads a
text's FinishEvent (service/pipeline/join.py: `joined`) and knows nothing of requests.
"""

from __future__ import annotations

from ...engine.confidence import low
from ...engine.request import FinishEvent, FinishReason, Timings

# (LibreTranslate's key, DeepL's key) of each field
_KEYS = {
    "finish": ("finish", "finish_reason"),
    "cut": ("cutShort", "cut_short"),
    "confidence": ("confidence", "confidence"),
    "low": ("lowConfidence", "low_confidence"),
    "text": ("translatedText", "text"),
    "markup": ("markupUnsure", "markup_unsure"),
    "checks": ("failedChecks", "failed_checks"),
}


def _fields(e: FinishEvent, style: int, cut: bool, is_low: bool) -> dict:
    k = {name: keys[style] for name, keys in _KEYS.items()}
    return {k["finish"]: e.reason.value, k["cut"]: cut, k["confidence"]: round(e.confidence, 4), k["low"]: is_low}


def _report(e: FinishEvent, style: int) -> dict:
    segments = [
        {
            "source": s.source,
            _KEYS["text"][style]: s.text,
            **_fields(s, style, s.cut_short, low(s.confidence)),
            _KEYS["markup"][style]: s.markup_unsure,
            _KEYS["checks"][style]: list(s.failed_checks),
        }
        for s in e.segments
    ]
    cut = any(s.cut_short for s in e.segments)
    return {**_fields(e, style, cut, any(low(s.confidence) for s in e.segments)), "segments": segments}


def kept(text: str) -> FinishEvent:
    """A text given back as it came, with no model call (DeepL's empty text): nothing to doubt."""
    return FinishEvent(FinishReason.EOS, text, [], [], 0, Timings(), confidence=1.0)


def libre(e: FinishEvent) -> dict:
    """LibreTranslate's extra keys for one text."""
    return _report(e, 0)


def deepl(e: FinishEvent) -> dict:
    """DeepL's extra keys for one translation object."""
    return _report(e, 1)
