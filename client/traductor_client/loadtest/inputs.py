"""Source sentences for the load generator."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import List, Optional

DEFAULT_RESOURCE = "sentences.txt"


def parse_lines(lines: List[str]) -> List[str]:
    """One source text per non-blank line; in a TSV (a line with a tab) the first column is
    the source and the rest (e.g. a reference translation) is ignored."""
    texts = []
    for line in lines:
        source = line.rstrip("\r\n").split("\t", 1)[0]
        if source.strip():
            texts.append(source)
    return texts


def load_texts(path: Optional[str] = None) -> List[str]:
    """Texts from ``path``, or the sentences shipped with the package when it is None."""
    if path is None:
        content = resources.files("traductor_client").joinpath("data", DEFAULT_RESOURCE).read_text(encoding="utf-8")
    else:
        content = Path(path).read_text(encoding="utf-8")
    texts = parse_lines(content.splitlines())
    if not texts:
        raise ValueError(f"no input sentences in {path or DEFAULT_RESOURCE}")
    return texts
