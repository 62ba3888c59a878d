"""Control tokens: what a caller asks of the project's models beyond the text, written into the
source as reserved SentencePiece symbols.

    register   `<formal>` or `<informal>` before the text: address the reader as "Sie"/"vous"/"usted"
               or as "du"/"tu"/"tú". No tag: the register most catalogs use (the model's own choice).
    terms      `<term> folder <to> Verzeichnis </term>`: a glossary term annotated in place, the source
               words followed by the target words the translation must use, inflected and agreed
               with as the sentence needs (the model learns it from references annotated with the
               word they use: training/augment.py).

A model knows these tokens when its tokenizer has them (`supported`): models trained before they
existed, and imported models, do not, and callers are told so rather than served text with tags
in it. This module knows the tokens and how to write them; not how a reference's register is
recognised (training/augment.py) nor which requests ask for what (service/).
"""

from __future__ import annotations

FORMAL, INFORMAL = "<formal>", "<informal>"
TERM, TERM_TO, TERM_END = "<term>", "<to>", "</term>"
TOKENS = (FORMAL, INFORMAL, TERM, TERM_TO, TERM_END)
REGISTERS = {"formal": FORMAL, "informal": INFORMAL}


def with_register(text: str, register: str | None) -> str:
    """`text` asked in `register` ("formal", "informal" or None: the model's own)."""
    return f"{REGISTERS[register]} {text}" if register else text


def annotate(text: str, terms: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end, target) span annotated: `<term> source <to> target </term>`
    (spaces around the words, so that they are cut into pieces as anywhere else). Spans are in
    order and do not overlap."""
    out, at = [], 0
    for start, end, target in terms:
        out += [text[at:start], f"{TERM} {text[start:end]} {TERM_TO} {target} {TERM_END}"]
        at = end
    return "".join(out) + text[at:]


def supported(piece_to_id, unk_id: int) -> bool:
    """Whether a SentencePiece vocabulary (its `piece_to_id`) has every control token."""
    return all(piece_to_id(t) != unk_id for t in TOKENS)
