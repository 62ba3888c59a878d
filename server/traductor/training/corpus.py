"""`traductor corpus`: English->Spanish sentence pairs from the gettext catalogs on this machine.

Debian ships the human translations of thousands of program messages as compiled gettext
catalogs (`/usr/share/locale/es/LC_MESSAGES/*.mo`). Each catalog is one program. The corpus is:

    read every .mo  ->  pairs (msgid, msgstr), plurals as two pairs, context stripped
    filter          ->  drop empty, identical, multi-line and overlong pairs
    split           ->  dev and test are *whole catalogs* held out (programs never seen)
    de-duplicate    ->  a pair once; a source that is in dev or test never in train
    write           ->  train.tsv, dev.tsv, test.tsv (source, target, catalog) + stats.json

Everything is sorted, so the same catalogs always give byte-identical files.
"""

from __future__ import annotations

import csv
import json
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from ..errors import CorpusError  # noqa: F401  (raised here, caught by the CLI)
from ..languages import LEGACY_PAIR

DEFAULT_CATALOG_DIR = Path("/usr/share/locale/es/LC_MESSAGES")
# Held-out programs: small GNU tools whose messages look like the rest of the corpus.
DEFAULT_DEV = ("diffutils", "findutils", "sed")
DEFAULT_TEST = ("grep", "make", "psmisc", "tar", "procps-ng")
MAX_CHARS = 300


@dataclass(frozen=True)
class Pair:
    source: str
    target: str
    catalog: str
    kind: str = ""  # the kind of program (debian.KINDS), when known


def read_mo(path: Path) -> list[tuple[str, str]]:
    """Parse a compiled gettext catalog into (msgid, msgstr) pairs.

    Format: magic, revision, N, offset of original table, offset of translation table; each
    table has N (length, offset) entries pointing at NUL-terminated strings.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise CorpusError(f"{path}: cannot read ({e.strerror or e})") from e
    if len(data) < 28:
        raise CorpusError(f"{path}: not a gettext .mo file (too short)")
    magic = struct.unpack("<I", data[:4])[0]
    if magic == 0x950412DE:
        order = "<"
    elif magic == 0xDE120495:
        order = ">"
    else:
        raise CorpusError(f"{path}: not a gettext .mo file (bad magic number)")
    _, count, orig_at, trans_at = struct.unpack(order + "4I", data[4:20])

    def raw(table: int, i: int) -> bytes:
        length, offset = struct.unpack(order + "2I", data[table + 8 * i : table + 8 * i + 8])
        if offset + length > len(data):
            raise CorpusError(f"{path}: corrupt .mo file (string {i} runs past the end)")
        return data[offset : offset + length]

    try:
        if trans_at + 8 * count > len(data) or orig_at + 8 * count > len(data):
            raise CorpusError(f"{path}: corrupt .mo file (tables run past the end)")
        charset = _charset(raw(trans_at, 0)) if count and not raw(orig_at, 0) else "utf-8"
        pairs = []
        for i in range(count):
            msgid, msgstr = raw(orig_at, i).decode(charset), raw(trans_at, i).decode(charset)
            if not msgid:  # the header entry
                continue
            msgid = msgid.split("\x04", 1)[-1]  # drop msgctxt
            sources, targets = msgid.split("\x00"), msgstr.split("\x00")
            # Plurals: singular with the first form, plural with the second.
            for src, tgt in zip(sources[:2], targets[:2]):
                pairs.append((src, tgt))
        return pairs
    except (struct.error, UnicodeDecodeError, LookupError) as e:
        raise CorpusError(f"{path}: corrupt .mo file ({e})") from e


def _charset(header: bytes) -> str:
    """The encoding named by the header's Content-Type (msgfmt keeps the .po's charset)."""
    found = re.search(rb"charset=([A-Za-z0-9_.:-]+)", header)
    name = found.group(1).decode("ascii").lower() if found else "utf-8"
    return "utf-8" if name in ("charset", "") else name


# KDE's and GNOME's translator credits: the "translation" is a person's name or address.
CREDITS = frozenset({"Your names", "Your emails", "translator-credits", "translator_credits", "Translator credits"})


def keep(source: str, target: str) -> bool:
    s, t = source.strip(), target.strip()
    return (
        s not in CREDITS
        and bool(s and t)
        and s != t
        and "\n" not in source + target
        and "\t" not in source + target
        and max(len(s), len(t)) <= MAX_CHARS
    )


def catalog_name(path: Path) -> str:
    return path.name[: -len(".mo")]


def collect(catalog_dir: Path) -> list[Pair]:
    files = sorted(Path(catalog_dir).glob("*.mo"))
    if not files:
        raise CorpusError(
            f"no gettext catalogs (*.mo) in {catalog_dir}: install Spanish translations "
            "(Debian ships them under /usr/share/locale/es/LC_MESSAGES) or pass --tsv FILE"
        )
    pairs = []
    for f in files:
        for src, tgt in read_mo(f):
            if keep(src, tgt):
                pairs.append(Pair(src.strip(), tgt.strip(), catalog_name(f)))
    if not pairs:
        raise CorpusError(f"the catalogs in {catalog_dir} hold no usable single-line pairs")
    return pairs


def read_tsv(path: Path, catalog: str = "") -> list[Pair]:
    """A user's own corpus: source<TAB>target[<TAB>catalog] per line."""
    path = Path(path)
    if not path.is_file():
        raise CorpusError(f"corpus file not found: {path}")
    pairs = []
    with path.open(encoding="utf-8", newline="") as f:
        for n, row in enumerate(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE), 1):
            if not row:
                continue
            if len(row) < 2:
                raise CorpusError(f"{path}:{n}: expected source<TAB>target, got {len(row)} column")
            if keep(row[0], row[1]):
                pairs.append(
                    Pair(
                        row[0].strip(),
                        row[1].strip(),
                        row[2] if len(row) > 2 else catalog,
                        row[3] if len(row) > 3 else "",
                    )
                )
    if not pairs:
        raise CorpusError(f"{path} holds no usable pairs")
    return pairs


def split(pairs: list[Pair], dev: tuple[str, ...], test: tuple[str, ...]) -> dict[str, list[Pair]]:
    """Whole catalogs go to dev/test; train never sees a source sentence that dev or test has."""
    out: dict[str, list[Pair]] = {"train": [], "dev": [], "test": []}
    seen: dict[str, set] = {k: set() for k in out}
    for p in sorted(pairs, key=lambda p: (p.catalog, p.source, p.target)):
        name = "test" if p.catalog in test else "dev" if p.catalog in dev else "train"
        if (p.source, p.target) not in seen[name]:
            seen[name].add((p.source, p.target))
            out[name].append(p)
    held_out = {s for s, _ in seen["dev"] | seen["test"]}
    out["train"] = [p for p in out["train"] if p.source not in held_out]
    test_sources = {s for s, _ in seen["test"]}
    out["dev"] = [p for p in out["dev"] if p.source not in test_sources]
    return out


def write_tsv(path: Path, pairs: list[Pair]) -> None:
    with Path(path).open("w", encoding="utf-8", newline="") as f:
        for p in pairs:
            f.write(
                f"{p.source}\t{p.target}\t{p.catalog}\t{p.kind}\n"
                if p.kind
                else f"{p.source}\t{p.target}\t{p.catalog}\n"
            )


def languages(corpus_dir: Path) -> dict:
    """The corpus's {"source", "target"} pair, as `traductor corpus` records it in stats.json; a corpus
    without one (a user's own TSVs, or one made before the pair was recorded) is the legacy en->es."""
    stats = Path(corpus_dir) / "stats.json"
    try:
        recorded = json.loads(stats.read_text()).get("languages") if stats.is_file() else None
    except (OSError, json.JSONDecodeError, AttributeError) as e:
        raise CorpusError(f"{stats}: unreadable ({e})") from e
    return dict(recorded or LEGACY_PAIR)


def load_split(path: Path) -> list[Pair]:
    """Read a TSV written by `write_tsv` (or any source<TAB>target file)."""
    return read_tsv(path)


def build(
    out_dir: Path, catalog_dir: Path = DEFAULT_CATALOG_DIR, tsv: Path | None = None, dev=DEFAULT_DEV, test=DEFAULT_TEST
) -> dict:
    """Write the splits into out_dir and return the counts."""
    pairs = read_tsv(tsv) if tsv else collect(catalog_dir)
    if tsv and not any(p.catalog for p in pairs):
        raise CorpusError(f"{tsv}: a third column (catalog) is needed to hold out whole catalogs")
    splits = split(pairs, tuple(dev), tuple(test))
    for name in ("dev", "test"):
        if not splits[name]:
            raise CorpusError(
                f"the {name} split is empty: none of the catalogs {list(dev if name == 'dev' else test)} is present"
            )
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, rows in splits.items():
        write_tsv(out_dir / f"{name}.tsv", rows)
    stats = {
        "source": str(tsv or catalog_dir),
        "pairs_read": len(pairs),
        "catalogs": len({p.catalog for p in pairs}),
        "dev_catalogs": sorted(dev),
        "test_catalogs": sorted(test),
        **{f"{k}_pairs": len(v) for k, v in splits.items()},
    }
    (out_dir / "stats.json").write_text(json.dumps(stats, indent=2) + "\n")
    return stats
