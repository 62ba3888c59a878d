"""How well SentencePiece tokenizers cover a corpus: pieces per sentence and byte-fallback pieces
(characters the vocabulary lacks, spelled out byte by byte), for sources and targets apart.

    python scripts/model/vocab_coverage.py work/corpus-de/dev.tsv \
        es=server/traductor/checkpoints/en-es/tokenizer.model de=work/pilot-de-own/tokenizer.model \
        --json docs/model/en-de-vocab.json

Reads the pairs as training does (placeholders masked), so the figures are those of the tokens the
model sees. It does not know which tokenizer a model was trained with: it compares the files given.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from traductor.model import placeholders
from traductor.model.tokenizer import Tokenizer


def masked_pairs(path: Path) -> list[tuple[str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if len(cols) >= 2:
            m = placeholders.mask(cols[0])
            out.append((m.text, placeholders.mask_like(cols[1], m.values)))
    return out


def spelled_in_bytes(tokenizer: Tokenizer, char: str, byte_ids: set[int]) -> bool:
    ids = [i for i in tokenizer.sp.encode(char) if tokenizer.sp.id_to_piece(i) != "\u2581"]
    return bool(ids) and all(i in byte_ids for i in ids)


def coverage(tokenizer: Tokenizer, texts: list[str]) -> dict:
    """Pieces per sentence, byte pieces per 1,000 characters, the share of sentences with any, and
    the characters most often spelled as bytes."""
    byte_ids = {i for i in range(tokenizer.vocab_size) if tokenizer.sp.is_byte(i)}
    pieces = bytes_used = with_bytes = chars = 0
    missing: Counter[str] = Counter()
    for text in texts:
        ids = tokenizer.encode_masked(text)
        n_bytes = sum(1 for i in ids if i in byte_ids)
        pieces, bytes_used, chars = pieces + len(ids), bytes_used + n_bytes, chars + len(text)
        if n_bytes:
            with_bytes += 1
            missing.update(c for c in set(text) if spelled_in_bytes(tokenizer, c, byte_ids))
    return {
        "pieces_per_sentence": round(pieces / max(len(texts), 1), 2),
        "byte_pieces_per_1000_chars": round(1000 * bytes_used / max(chars, 1), 2),
        "sentences_with_byte_pieces": round(with_bytes / max(len(texts), 1), 4),
        "characters_spelled_as_bytes": "".join(c for c, _ in missing.most_common(12)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tsv", type=Path, help="source<TAB>target pairs (a corpus split)")
    parser.add_argument("tokenizers", nargs="+", help="NAME=PATH of a tokenizer.model")
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args()
    pairs = masked_pairs(args.tsv)
    report = {"pairs": len(pairs), "file": str(args.tsv)}
    for spec in args.tokenizers:
        name, _, path = spec.partition("=")
        tokenizer = Tokenizer(path)
        report[name] = {
            "vocab_size": tokenizer.vocab_size,
            "source": coverage(tokenizer, [s for s, _ in pairs]),
            "target": coverage(tokenizer, [t for _, t in pairs]),
        }
    text = json.dumps(report, indent=2, ensure_ascii=False)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
