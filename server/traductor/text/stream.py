"""Streaming a segmented text: text deltas in text order from segments decoded in any order.

The segments of a text decode together (rows of one batch), so their tokens and ends arrive
interleaved. A `DeltaStream` turns those events into the deltas of the whole text: the first
segment not yet finished (the head) streams as it decodes; the separators after it and the
segments behind it follow as soon as they become the head, a finished one all at once. The
concatenation of everything it returns equals `plan.assemble(translations)` exactly, where
translations[i] is the text given to `finish(i, ...)`.

In HTML the markup of a segment is restored only on its whole translation, so HTML segments
are sent when they finish, not token by token. A head is held back until it has a letter outside
placeholders: a segment that ends with none keeps its source (`Plan.finished`), which can then
still be sent whole.
"""

from __future__ import annotations

from .pieces import Kind, produced_nothing
from .segment import Plan


class DeltaStream:
    def __init__(self, plan: Plan):
        self.plan = plan
        self.live = plan.format == "text"  # whether the head streams before it finishes
        self._seg = {}  # piece position -> segment index
        for pos, piece in enumerate(plan.pieces):
            if piece.kind is Kind.TRANSLATE:
                self._seg[pos] = len(self._seg)
        self._partial: dict[int, str] = {}
        self._final: dict[int, str] = {}
        self._cursor = 0  # the first piece not wholly sent
        self._head_sent = ""  # what was sent of the piece at the cursor

    @property
    def done(self) -> bool:
        return self._cursor == len(self.plan.pieces)

    def begin(self) -> str:
        """The text before the first segment to translate (all of it if there is none)."""
        return self._advance()

    def push(self, index: int, delta: str) -> str:
        """Segment `index` decoded `delta` more text; returns what can be sent now."""
        return self.partial(index, self._partial.get(index, "") + delta)

    def partial(self, index: int, text: str) -> str:
        """Segment `index` has decoded `text` so far; returns what can be sent now."""
        self._check(index)
        self._partial[index] = text
        return self._advance()

    def finish(self, index: int, text: str) -> str:
        """Segment `index` is translated as `text`; returns what can be sent now."""
        self._check(index)
        self._final[index] = text
        return self._advance()

    def sent(self, index: int) -> bool:
        """Whether some of segment `index`'s text went out before it finished (only the head streams)."""
        head = self._seg.get(self._cursor) if self._cursor < len(self.plan.pieces) else None
        return head == index and bool(self._head_sent)

    def _check(self, index: int) -> None:
        if not 0 <= index < len(self._seg):
            raise IndexError(f"segment {index} of a plan with {len(self._seg)} segments")
        if index in self._final:
            raise ValueError(f"segment {index} already finished")

    def _advance(self) -> str:
        out = []
        pieces = self.plan.pieces
        while self._cursor < len(pieces):
            piece = pieces[self._cursor]
            if piece.kind is not Kind.TRANSLATE:
                out.append(piece.text)
            else:
                index = self._seg[self._cursor]
                if index not in self._final:
                    out.append(self._stream_head(index))
                    break
                text = self.plan.finished(piece, self._final[index])
                if not text.startswith(self._head_sent):
                    raise ValueError(f"segment {index}: the translation does not start with the text already streamed")
                out.append(text[len(self._head_sent) :])
                self._head_sent = ""
            self._cursor += 1
        return "".join(out)

    def _stream_head(self, index: int) -> str:
        partial = self._partial.get(index, "")
        if not self.live or not partial.startswith(self._head_sent):
            return ""
        # Once a head has been sent from, it had a letter, and a translation that grows keeps it
        # (`produced_nothing`): only a head with nothing sent yet is checked (once a token, not
        # the whole partial text again for every token of a long segment).
        if not self._head_sent and produced_nothing(partial):
            return ""
        delta, self._head_sent = partial[len(self._head_sent) :], partial
        return delta
