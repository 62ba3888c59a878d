"""`traductor corpus` on Debian packages: catalogs -> pairs -> whole-package splits by kind.

    pairs     every .mo of every package (corpus.read_mo: contexts stripped, plurals as two pairs),
              filtered by corpus.keep; a pair remembers its package and the package's kind
    groups    the unit that is held out is a Debian *source* (foo, foo-data and foo-l10n share
              their messages, so they go to the same split)
    split     per kind, groups in a fixed pseudo-random order (sha1 of the source name) are held
              out for test, then dev, until each kind has enough pairs; held-out pairs whose
              source sentence also occurs in a training package are dropped from dev/test, so no
              dev or test source is ever seen in training and training keeps every message
    common    the source messages found in the most packages, with their most common human
              translation (common.tsv): what users notice first
    memory    the translation memory (memory.tsv): every source whose most common translation is
              shared by >= 2 training packages (memory_entries); dev/test packages never count

Deterministic: the same cached packages give byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable

from ..languages import ENGLISH, LEGACY_PAIR, tag
from . import debian
from .corpus import CorpusError, Pair, keep, read_mo, write_tsv

TEST_PAIRS_PER_KIND = 900
DEV_PAIRS_PER_KIND = 350
MAX_HELD_OUT_GROUP = 700  # a group bigger than this stays in training (too much to lose)
COMMON = 200
MEMORY_MIN_PACKAGES = 2


def collect(mo_dir: Path, infos: dict[str, debian.PackageInfo], kinds: dict[str, str]) -> tuple[list[Pair], list[str]]:
    """Every usable pair, and the catalogs that could not be read (reported, not fatal)."""
    pairs, unreadable = [], []
    for name in sorted(infos):
        for catalog in infos[name].catalogs:
            try:
                found = read_mo(mo_dir / name / catalog)
            except CorpusError as e:
                unreadable.append(str(e))
                continue
            pairs += [Pair(src.strip(), tgt.strip(), name, kinds[name]) for src, tgt in found if keep(src, tgt)]
    if not pairs:
        raise CorpusError(f"the packages' catalogs in {mo_dir} hold no usable pairs")
    return pairs, unreadable


def _order(source_package: str) -> str:
    return hashlib.sha1(source_package.encode()).hexdigest()


def choose_held_out(pairs: list[Pair], group_of: dict[str, str], per_kind: int, exclude: set[str]) -> set[str]:
    """Groups (Debian sources) to hold out so that every kind has `per_kind` unseen pairs."""
    sources_by_group: dict[str, set[str]] = defaultdict(set)
    kind_of: dict[str, str] = {}
    for p in pairs:
        sources_by_group[group_of[p.catalog]].add(p.source)
        kind_of[group_of[p.catalog]] = p.kind
    groups_with: dict[str, set[str]] = defaultdict(set)
    for group, sources in sources_by_group.items():
        for s in sources:
            groups_with[s].add(group)
    chosen: set[str] = set()
    for kind in debian.KINDS:
        of_kind = [g for g in sources_by_group if kind_of[g] == kind]
        room = len(of_kind) // 2 - len([g for g in exclude if kind_of.get(g) == kind])  # half stays in training
        candidates = sorted(
            (
                g
                for g in sources_by_group
                if kind_of[g] == kind and g not in exclude and len(sources_by_group[g]) <= MAX_HELD_OUT_GROUP
            ),
            key=_order,
        )
        for group in candidates[: max(room, 0)]:
            unseen = {
                s
                for g in chosen | {group}
                if kind_of[g] == kind
                for s in sources_by_group[g]
                if groups_with[s] <= chosen | {group} | exclude
            }
            chosen.add(group)
            if len(unseen) >= per_kind:
                break
    return chosen


def held_out_groups(
    pairs: list[Pair], group_of: dict[str, str], held_out: tuple[int, int] = (TEST_PAIRS_PER_KIND, DEV_PAIRS_PER_KIND)
) -> tuple[set[str], set[str]]:
    """The (test, dev) groups: see `split`."""
    test = choose_held_out(pairs, group_of, held_out[0], set())
    return test, choose_held_out(pairs, group_of, held_out[1], test)


def split(
    pairs: list[Pair],
    group_of: dict[str, str],
    held_out: tuple[int, int] = (TEST_PAIRS_PER_KIND, DEV_PAIRS_PER_KIND),
    groups: tuple[set[str], set[str]] | None = None,
) -> dict[str, list[Pair]]:
    """train/dev/test; `held_out` is the number of (test, dev) pairs wanted per kind of program
    (or `groups`, the (test, dev) groups already chosen by `held_out_groups`).
    At most half of a kind's sources are held out in all, so training always sees every kind."""
    test, dev = groups or held_out_groups(pairs, group_of, held_out)
    out: dict[str, list[Pair]] = {"train": [], "dev": [], "test": []}
    seen: dict[str, set] = {k: set() for k in out}
    for p in sorted(pairs, key=lambda p: (p.catalog, p.source, p.target)):
        group = group_of[p.catalog]
        name = "test" if group in test else "dev" if group in dev else "train"
        key = (p.source, p.target) if name == "train" else p.source  # held out: one reference a source
        if key not in seen[name]:
            seen[name].add(key)
            out[name].append(p)
    train_sources = {p.source for p in out["train"]}
    out["test"] = [p for p in out["test"] if p.source not in train_sources]
    test_sources = {p.source for p in out["test"]}
    taken = train_sources | test_sources  # once: inside the comprehension it was rebuilt for every dev pair
    out["dev"] = [p for p in out["dev"] if p.source not in taken]
    return out


def reversed_pair(p: Pair) -> Pair:
    return Pair(p.target, p.source, p.catalog, p.kind)


def reverse(splits: dict[str, list[Pair]]) -> dict[str, list[Pair]]:
    """The splits the other way round (into English), held out by the same packages: a model
    warm-started from the forward model has never seen a reversed dev or test pair. A training
    pair whose new source is a dev or test source leaves the training split (several English
    messages share one translation, so the reversed sources are not unique as the forward ones are)."""
    out = {name: [reversed_pair(p) for p in rows] for name, rows in splits.items()}
    held = {p.source for name in ("dev", "test") for p in out[name]}
    out["train"] = [p for p in out["train"] if p.source not in held]
    return out


def cap_per_package(rows: list[Pair], limit: int) -> list[Pair]:
    """At most `limit` training pairs from one package (a fixed pseudo-random choice), so that a
    few huge catalogs (a 3-D suite, a GIS, a compiler) do not drown the thousand small ones."""
    if not limit:
        return rows
    by_package: dict[str, list[Pair]] = defaultdict(list)
    for p in rows:
        by_package[p.catalog].append(p)
    kept = set()
    for members in by_package.values():
        kept.update(id(p) for p in sorted(members, key=lambda p: _order(p.source + "\t" + p.target))[:limit])
    return [p for p in rows if id(p) in kept]


def common_messages(pairs: list[Pair], n: int = COMMON) -> list[tuple[str, str, int]]:
    """(source, most common translation, packages) for the n sources found in the most packages."""
    packages, translations = _votes(pairs)
    top = sorted(packages, key=lambda s: (-len(packages[s]), s))[:n]
    return [(s, _most_common(translations[s])[0], len(packages[s])) for s in top]


def _votes(pairs: list[Pair]) -> tuple[dict[str, set[str]], dict[str, Counter]]:
    """Per source: the packages it is in, and its translations counted once per package."""
    packages: dict[str, set[str]] = defaultdict(set)
    translations: dict[str, Counter] = defaultdict(Counter)
    for p in pairs:
        if p.catalog not in packages[p.source]:
            packages[p.source].add(p.catalog)
            translations[p.source][p.target] += 1
    return packages, translations


def _most_common(votes: Counter) -> tuple[str, int]:
    return min(votes.items(), key=lambda kv: (-kv[1], kv[0]))


def memory_entries(pairs: list[Pair], train_packages: set[str]) -> list[tuple[str, str, int]]:
    """(source, translation, packages), sorted by source: for each source, its most common
    translation among `train_packages`, when at least MEMORY_MIN_PACKAGES of them agree on it
    ("Settings" -> "Configuración" even though others say "Preferencias": a translation that
    several programs ship is a safe answer). Pairs of other packages (dev, test) are not looked at."""
    packages, translations = _votes([p for p in pairs if p.catalog in train_packages])
    out = []
    for source in sorted(packages):
        n = len(packages[source])
        target, votes = _most_common(translations[source])
        if votes >= MEMORY_MIN_PACKAGES:
            out.append((source, target, n))
    return out


def _by_kind(splits: dict[str, list[Pair]]) -> dict:
    return {
        kind: {
            split_name: {
                "packages": len({p.catalog for p in rows if p.kind == kind}),
                "pairs": sum(p.kind == kind for p in rows),
            }
            for split_name, rows in splits.items()
        }
        for kind in debian.KINDS
    }


def build(
    out_dir: Path,
    cache: Path,
    package_list: Path | None = None,
    lang: str = LEGACY_PAIR["target"],
    offline: bool = False,
    max_per_package: int = 0,
    held_out: tuple[int, int] = (TEST_PAIRS_PER_KIND, DEV_PAIRS_PER_KIND),
    progress: Callable[[str, int], Callable[[int], None]] | None = None,
    into_english: bool = False,
) -> dict:
    """Download (unless cached), extract, split and write train/dev/test/common TSVs + stats.json;
    `into_english`: the pairs the other way round (lang -> en), split by the same packages."""
    bar = progress or (lambda desc, total: lambda n: None)
    names = debian.read_package_list(package_list)
    debs = cache / "debs"
    if not offline:
        debian.download(names, debs, bar("download", len(names)))
    infos = debian.extract_all(names, debs, cache / "mo" / lang, lang, bar("extract", len(names)))
    infos = {n: i for n, i in infos.items() if i.catalogs}
    if not infos:
        raise CorpusError(
            f"none of the {len(names)} packages has {lang} catalogs in {cache} (run without --offline to download them)"
        )
    kinds = debian.kinds(infos.values())
    pairs, unreadable = collect(cache / "mo" / lang, infos, kinds)
    group_of = {n: i.source for n, i in infos.items()}
    test, dev = held_out_groups(pairs, group_of, held_out)
    splits = split(pairs, group_of, groups=(test, dev))
    memory = memory_entries(pairs, {n for n, g in group_of.items() if g not in test | dev})  # training only
    splits["train"] = cap_per_package(splits["train"], max_per_package)
    if into_english:
        splits = reverse(splits)
        pairs = [reversed_pair(p) for p in pairs]
        memory = memory_entries(pairs, {n for n, g in group_of.items() if g not in test | dev})
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, rows in splits.items():
        write_tsv(out_dir / f"{name}.tsv", rows)
    for name, rows in (("common.tsv", common_messages(pairs)), ("memory.tsv", memory)):
        (out_dir / name).write_text("".join(f"{s}\t{t}\t{n}\n" for s, t, n in rows), encoding="utf-8")
    per_package = Counter(p.catalog for p in pairs)
    stats = {
        "source": f"Debian packages ({package_list or 'bundled list'}), language {lang}",
        # msgids are English (gettext's convention)
        # the catalogs' folder name (pt_BR) as the BCP 47 tag the model's bundle declares (pt-BR)
        "languages": {"source": tag(lang), "target": ENGLISH}
        if into_english
        else {"source": ENGLISH, "target": tag(lang)},
        "packages_listed": len(names),
        "packages_not_in_cache": sorted(n for n in names if debian.deb_for(debs, n) is None),
        "packages_without_catalogs": sorted(n for n in names if debian.deb_for(debs, n) and n not in infos),
        "packages_with_catalogs": len(infos),
        "max_train_pairs_per_package": max_per_package,
        "catalogs_unreadable": unreadable,
        "pairs_read": len(pairs),
        **{f"{k}_pairs": len(v) for k, v in splits.items()},
        "memory_entries": len(memory),
        "by_kind": _by_kind(splits),
        "dev_packages": sorted({p.catalog for p in splits["dev"]}),
        "test_packages": sorted({p.catalog for p in splits["test"]}),
        "pairs_per_package": dict(sorted(per_package.items())),
    }
    (out_dir / "stats.json").write_text(json.dumps(stats, indent=1) + "\n")
    return stats
