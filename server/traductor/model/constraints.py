"""What a decoder may not produce next: the EOS, placeholder and loop rules, in one place, in numpy.

    * EOS is impossible while fewer than min_new_tokens tokens are out;
    * a placeholder token (<phK>) is possible only while the source has an occurrence of it that
      the output does not have yet;
    * EOS is impossible while one of the source's placeholders is still missing from the output;
    * an output that loops ends: once it ends in a unit of 1 to MAX_PERIOD tokens repeated
      `repeat_limit(source)` times in a row, EOS is the only token it may produce next (EOS keeps
      its own score, so a beam search still prefers a hypothesis that does not loop). The limit is
      MIN_REPEATS, or twice the most times the source itself repeats a unit in a row ("ha ha ha",
      "=========="), whichever is more. This rule yields to min_new_tokens (a caller who asks for
      at least N tokens gets them), and a looping output that still owes placeholders may produce
      only those first (a URL or a path is never lost to a loop). The caller is told: an output
      that holds such a loop (`looped`: the rule stopped it there) finishes as LOOP. A beam
      search may also leave a loop by a costly token and loop on to the length limit: it ends at
      the limit then, cut short all the same (the automatic limit is 2 x source + 10 tokens);
    * a source that asks for a register (a `<formal>`/`<informal>` tag, model/controls.py) bans the
      other register's words of address: each is a sequence of pieces ("▁Sie"; "▁to", "i" for
      "toi"), and the sequence's last piece is impossible wherever the output ends with the pieces
      before it (model/controls.register_bans; the tokenizer gives their ids). A word glued to
      punctuation or a placeholder ("(vous", "„Sie", "<ph0>vous") is cut into other pieces
      ("▁(", "vous"): those are banned only right after such a piece, so that the same pieces
      inside longer words stay allowed. One register throughout a message, whatever the weights
      do; a source without a tag bans nothing.

Every decoder applies these rules through `Constraints.banned` and `Constraints.stop`: greedy,
sampling and beam search in the serving engine (numpy), and the PyTorch reference decoder
(model/generate.py, which indexes its tensor with the same arrays). A row's bans depend on its own
source and tokens only, never on the other rows of a batch. The module knows token ids only: which
ids are placeholders, and which pieces address the reader in which register, comes from the tokenizer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

NEG_INF = -np.inf
WORD_END = -1  # in a register ban's sequence: any id of `RegisterBans.word_end_ids`
GLUED = -2  # first in a register ban's sequence: any id of `RegisterBans.glue_ids` (the piece a word is glued to)
MAX_PERIOD = 8  # the longest repeated unit looked for, in tokens
MIN_REPEATS = 4  # times in a row a unit may not reach, whatever the source


def longest_repeat(tokens: Sequence[int]) -> int:
    """The most times a unit of 1 to MAX_PERIOD tokens repeats in a row in `tokens` (1: none does)."""
    best, n = 1, len(tokens)
    for p in range(1, min(MAX_PERIOD, n // 2) + 1):
        run = 0  # tokens equal to the one p before them, in a row
        for i in range(p, n):
            if tokens[i] == tokens[i - p]:
                run += 1
                best = max(best, (run + p) // p)
            else:
                run = 0
    return best


def looping(tokens: Sequence[int], limit: int) -> bool:
    """Whether `tokens` end in a unit of 1 to MAX_PERIOD tokens repeated `limit` times in a row
    (never with limit 0: the rule is off)."""
    n = len(tokens)
    if limit < 1 or n < limit:
        return False
    last = tokens[-1]
    for p in range(1, min(MAX_PERIOD, n // limit) + 1):
        # the cheap test first: a p-periodic end has its last token p places before too
        if tokens[n - 1 - p] == last and tokens[n - p * (limit - 1) :] == tokens[n - p * limit : n - p]:
            return True
    return False


def looped(tokens: Sequence[int], limit: int) -> bool:
    """Whether some prefix of `tokens` is `looping`: the rule stopped the output there, though it
    may have gone on with the placeholders it owed (or with min_new_tokens)."""
    n = len(tokens)
    for p in range(1, min(MAX_PERIOD, n // limit) + 1 if limit >= 1 else 0):
        run = 0  # tokens equal to the one p before them, in a row
        for i in range(p, n):
            run = run + 1 if tokens[i] == tokens[i - p] else 0
            if run >= p * (limit - 1):
                return True
    return False


class RegisterBans:
    """One register tag's bans: the ids banned after each context (the pieces before a banned
    sequence's last one; () for one-piece words: banned everywhere). A sequence that ends with
    WORD_END bans `word_end_ids` (the pieces that end a word: "▁...", punctuation, placeholders)
    after its other pieces: the word is banned where it ends, not where it begins a longer one. A
    sequence that begins with GLUED is a word glued to what came before it: its context counts
    only right after one of `glue_ids` (pieces that end in punctuation, placeholders).
    `addressed`: the bans instead of these for a source that addresses the reader (`Addressed`)."""

    addressed: Addressed | None = None

    def __init__(
        self, sequences: Iterable[Sequence[int]], word_end_ids: Iterable[int] = (), glue_ids: Iterable[int] = ()
    ):
        word_ends = [int(t) for t in word_end_ids]
        after: dict[tuple[int, ...], set[int]] = {}
        glued: dict[tuple[int, ...], set[int]] = {}
        for seq in sequences:
            seq = tuple(int(t) for t in seq)
            table = after
            if seq[:1] == (GLUED,):
                seq, table = seq[1:], glued
            if seq and seq != (WORD_END,):  # a word's end alone is no word
                ids = word_ends if seq[-1] == WORD_END else [seq[-1]]
                table.setdefault(seq[:-1], set()).update(ids)
        always = after.pop((), set())
        self.always = np.asarray(sorted(always), dtype=np.int64)
        # each context's ids with `always`: one ready array for a row, nothing joined per step
        self.after = {context: np.asarray(sorted(ids | always), dtype=np.int64) for context, ids in after.items()}
        self.depths = sorted({len(context) for context in self.after})
        self.glued = {context: np.asarray(sorted(ids | always), dtype=np.int64) for context, ids in glued.items()}
        self.glue_ids = frozenset(int(t) for t in glue_ids) if self.glued else frozenset()
        # the pieces of the glued contexts: going back from the output's end over these only, a
        # step looks for the glue piece; most steps end in neither (one set look-up a row)
        self.glued_pieces = frozenset(t for context in self.glued for t in context)
        self.glued_depth = max(map(len, self.glued), default=0)
        self._glued_ends = self.glue_ids | self.glued_pieces

    def __bool__(self) -> bool:
        return bool(self.always.size or self.after or self.glued)

    def ids(self, output: Sequence[int]) -> np.ndarray:
        """The ids this output may not produce next (`always` among them)."""
        found = []
        for k in self.depths:
            if len(output) >= k:
                hit = self.after.get(tuple(output[len(output) - k :]))
                if hit is not None:
                    found.append(hit)
        if output and output[-1] in self._glued_ends:
            hit = self._glued(output)
            if hit is not None:
                found.append(hit)
        if not found:
            return self.always
        return found[0] if len(found) == 1 else np.unique(np.concatenate(found))

    def _glued(self, output: Sequence[int]) -> np.ndarray | None:
        """The ids banned after the glued word the output ends with, if any: the pieces after the
        last glue piece, if every one of them belongs to a glued context (glue pieces never do)."""
        n = len(output)
        for at in range(n - 1, max(n - 2 - self.glued_depth, -1), -1):
            if output[at] in self.glue_ids:
                return self.glued.get(tuple(output[at + 1 :]))
            if output[at] not in self.glued_pieces:
                return None
        return None


@dataclass(frozen=True)
class Addressed:
    """A register's bans for a source with one of the `you` ids ("▁your") and none of the `others`
    ("▁its"): Spanish "su", "puede" are the reader's then (model/controls.ADDRESSED)."""

    bans: RegisterBans
    you: frozenset[int]
    others: frozenset[int] = frozenset()


ADDRESSED_KEY = 1 << 30  # a register tag's id plus this: the key of its `Addressed` bans


class Constraints:
    def __init__(
        self,
        placeholder_ids: Iterable[int],
        eos_id: int,
        register_bans: Mapping[int, RegisterBans | Iterable[Sequence[int]]] | None = None,
    ):
        """`register_bans`: register tag id -> what a source with that tag may not have in its
        translation (the tokenizer's `register_bans`, or bare piece-id sequences; none: no register rule)."""
        self.placeholder_ids = tuple(sorted(placeholder_ids))
        self._placeholders = frozenset(self.placeholder_ids)
        self._ids = np.asarray(self.placeholder_ids, dtype=np.int64)
        self.eos_id = eos_id
        bans = {int(t): b if isinstance(b, RegisterBans) else RegisterBans(b) for t, b in (register_bans or {}).items()}
        self._registers = {tag: b for tag, b in bans.items() if b}
        self._addressed = {tag: b.addressed for tag, b in self._registers.items() if b.addressed}
        self._registers.update({tag + ADDRESSED_KEY: a.bans for tag, a in self._addressed.items()})

    def register(self, source_ids: Iterable[int]) -> int | None:
        """The key of the register bans this source asks for: its register tag (the first in it),
        the tag + ADDRESSED_KEY when the source addresses the reader and the tag has `Addressed`
        bans, or None: no register bans."""
        if self._registers:
            source = list(source_ids)
            for t in source:
                if t in self._registers and t < ADDRESSED_KEY:
                    a = self._addressed.get(t)
                    ids = set(source) if a else set()
                    return int(t) + ADDRESSED_KEY if a and ids & a.you and not ids & a.others else int(t)
        return None

    def required(self, source_ids: Iterable[int]) -> Counter:
        """The placeholder tokens (with their counts) a translation of this source must contain."""
        return Counter(t for t in source_ids if t in self._placeholders)

    def repeat_limit(self, source_ids: Sequence[int]) -> int:
        """How many times in a row a unit may repeat in an output of this source before it loops."""
        return max(MIN_REPEATS, 2 * longest_repeat([t for t in source_ids if t != self.eos_id]))

    def missing(self, required: Counter, output: Iterable[int]) -> Counter:
        """The required placeholders not yet in `output` (which may hold BOS, EOS or PAD too)."""
        if not required:  # most sources have none: nothing to count in the output
            return Counter()
        return required - Counter(t for t in output if t in self._placeholders)

    def banned(
        self,
        missing: Sequence[Counter],
        too_short: Sequence[bool],
        registers: Sequence[int | None] = (),
        outputs: Sequence[Sequence[int]] = (),
    ) -> tuple[np.ndarray, np.ndarray]:
        """(rows, columns) of the tokens each row may not produce next (the loop rule is `stop`'s).

        missing[i] is row i's missing placeholders; too_short[i] whether row i has produced fewer
        than min_new_tokens; registers[i] the register tag row i's source asks for (`register`;
        none given: no row has one) and outputs[i] its tokens so far. Index the step's scores with
        the result and set them to -inf."""
        rows, cols = self._placeholder_bans(missing, too_short)
        if any(t is not None for t in registers):
            reg_rows, reg_cols = self._register_bans(registers, outputs)
            rows, cols = np.concatenate([rows, reg_rows]), np.concatenate([cols, reg_cols])
        return rows, cols

    def _register_bans(
        self, registers: Sequence[int | None], outputs: Sequence[Sequence[int]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The register rule's (rows, columns): only rows that ask for a register are looked at, a
        few dictionary look-ups each (never the vocabulary)."""
        rows = [i for i, tag in enumerate(registers) if tag is not None]
        cols = [self._registers[registers[i]].ids(outputs[i]) for i in rows]
        return np.repeat(np.asarray(rows, dtype=np.int64), [c.size for c in cols]), np.concatenate(cols)

    def _placeholder_bans(self, missing: Sequence[Counter], too_short: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
        n, ids = len(missing), self._ids
        owing = [i for i, left in enumerate(missing) if left and +left]  # `+left` (a new Counter) only when non-empty
        owes = set(owing)  # a looping row among them pays its placeholders before its EOS (`stop`)
        eos_rows = np.array([i for i in range(n) if too_short[i] or i in owes], dtype=np.int64)
        if not ids.size:
            return eos_rows, np.full(eos_rows.size, self.eos_id, dtype=np.int64)
        # This runs every decode step for every row: ban all placeholders for all rows at once, then
        # allow the few a row still owes (only rows that owe any are looked at in Python).
        allowed = np.zeros((n, ids.size), dtype=bool)
        for i in owing:
            allowed[i] = [missing[i][p] > 0 for p in self.placeholder_ids]
        ph_rows, ph_cols = np.nonzero(~allowed)
        rows = np.concatenate([eos_rows, ph_rows.astype(np.int64)])
        cols = np.concatenate([np.full(eos_rows.size, self.eos_id, dtype=np.int64), ids[ph_cols]])
        return rows, cols

    def stopping_rows(
        self, outputs: Sequence[Sequence[int]], limits: Sequence[int], too_short: Sequence[bool]
    ) -> list[int]:
        """The rows whose output loops (and is long enough to end): EOS is all they may produce next."""
        return [i for i, (out, limit) in enumerate(zip(outputs, limits)) if not too_short[i] and looping(out, limit)]

    def stop(self, scores, rows, missing: Sequence[Counter] = ()) -> None:
        """Every token but EOS at -inf in `rows` of `scores` (numpy or torch), in place; EOS keeps
        its score. A row that still owes placeholders (`missing`, one Counter per row of `rows`)
        keeps the scores of those instead (`banned` has taken its EOS)."""
        owes = [j for j, left in enumerate(missing) if left and +left]
        if len(rows):
            keep = [(rows[j], [p for p in self.placeholder_ids if missing[j][p] > 0]) for j in owes]
            saved = [scores[row, ids] * 1 for row, ids in keep]  # a copy, numpy or torch
            scores[rows, : self.eos_id] = NEG_INF
            scores[rows, self.eos_id + 1 :] = NEG_INF
            for (row, ids), values in zip(keep, saved):
                scores[row, ids] = values

    def apply(
        self,
        scores: np.ndarray,
        missing: Sequence[Counter],
        too_short: Sequence[bool],
        outputs: Sequence[Sequence[int]] = (),
        limits: Sequence[int] = (),
        registers: Sequence[int | None] = (),
    ) -> None:
        """Set the banned entries of `scores` (rows in the order of `missing`) to -inf, in place;
        with `outputs` (each row's tokens so far) and their `limits` (`repeat_limit`), the loop rule
        too, and with `registers` (each row's `register`), the register rule."""
        stopping = self.stopping_rows(outputs, limits, too_short) if outputs else []
        rows, cols = self.banned(missing, too_short, registers, outputs)
        if rows.size:
            scores[rows, cols] = NEG_INF
        self.stop(scores, np.asarray(stopping, dtype=np.int64), [missing[i] for i in stopping])
