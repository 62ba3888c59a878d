"""Text-level limits of one request, and the errors of the text layer.

A request is refused before any model work when its text is longer than `max_chars`
characters, when it would become more than `max_segments` segments to translate (pass-through
segments and separators cost no model call and do not count), or when it holds a control
character other than tab, line feed and carriage return (`check_controls`: U+0000 to U+001F and
U+007F to U+009F; the model never saw them and answered "a\x00b" with a made-up word); the
message names its position. Tab, line feed and carriage return are layout: they separate columns
and lines and come back where they were. The model's own per-segment limit is not here: the
text layer splits a long sentence instead of refusing it (see `segment.plan`).

Every error of this package derives from `TextError`, an `errors.InvalidInput` (the caller's
input is wrong: the service answers INVALID_ARGUMENT with the message, the CLI prints it);
`LimitExceeded` also names the limit in `.limit`, `.value` and `.maximum`; its message names
the `traductor serve` flag that sets it (`.flag`), what an operator raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import InvalidInput


@dataclass(frozen=True)
class TextLimits:
    max_chars: int = 20_000  # characters of one text
    max_segments: int = 500  # segments to translate in one text

    def __post_init__(self) -> None:
        for name in ("max_chars", "max_segments"):
            if getattr(self, name) < 1:
                raise ValueError(f"TextLimits.{name} must be at least 1, got {getattr(self, name)}")


class TextError(InvalidInput):
    """A text the text layer cannot handle; the message says why."""


class UnknownFormat(TextError):
    """The format is neither "text" nor "html"."""


class ControlCharacter(TextError):
    """A text holding a control character other than tab, line feed and carriage return; `.position`
    is its index in the text (characters, from 0) and `.character` the character."""

    def __init__(self, character: str, position: int):
        self.character, self.position = character, position
        super().__init__(
            f"text holds the control character U+{ord(character):04X} at position {position} (characters counted "
            f"from 0); only tab, line feed and carriage return are accepted"
        )


class LimitExceeded(TextError):
    """A text over one of the `TextLimits`; `.limit` is the field's name."""

    limit = ""
    what = ""
    flag = ""

    def __init__(self, value: int, maximum: int):
        self.value, self.maximum = value, maximum
        super().__init__(f"text is {value} {self.what}, over the limit of {maximum} ({self.flag})")


class TooManyChars(LimitExceeded):
    limit, what, flag = "max_chars", "characters", "--max-input-chars"


class TooManySegments(LimitExceeded):
    limit, what, flag = "max_segments", "segments", "--max-segments"


def check_chars(text: str, limits: TextLimits) -> None:
    if len(text) > limits.max_chars:
        raise TooManyChars(len(text), limits.max_chars)


def check_segments(count: int, limits: TextLimits) -> None:
    if count > limits.max_segments:
        raise TooManySegments(count, limits.max_segments)


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # Cc less tab, line feed, carriage return


def check_controls(text: str) -> None:
    found = _CONTROL.search(text)
    if found:
        raise ControlCharacter(found.group(), found.start())
