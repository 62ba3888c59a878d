"""`traductor corpus --docs`: documentation pairs (English -> each language) from Debian packages.

    packages      the package list less the reserved documentation (debian_docs.allowed), decided by
                  name and Debian source before anything is downloaded
    sources       help      help pages of the allowed .debs, English page with its translation
                  man       the translated man pages an allowed package ships itself (dpkg, apt), and
                            manpages-l10n's (manpages-LL) of the pages an allowed package ships in
                            English and does not translate (that package is the pair's package)
                  description  Debian's Translation-LL descriptions of the allowed packages whose
                            Description-md5 is the English one's (translated from that very text)
    pairs         aligned by docs_align and docs_man; which are kept, and when a paragraph becomes
                  its sentences: docs_pairs
    split         whole Debian sources are held out (the same ones for every language): in a fixed
                  pseudo-random order (sha1 of the name), groups that have the kind in every
                  language are taken for test, then dev, until each kind has the pairs wanted in
                  every language (at most a third of a kind's groups, none bigger than what is
                  wanted); then debian_corpus.split: train keeps a pair once, a held-out source
                  once, and no held-out source is a training source
    write         OUT/LL/train.tsv, dev.tsv, test.tsv (source, target, package, doc kind) and
                  OUT/LL/stats.json (with the language pair, as training reads it); OUT/stats.json

Deterministic: the same cached files give byte-identical output.
"""

from __future__ import annotations

import bz2
import hashlib
import json
import lzma
import re
import shutil
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable

from ..errors import CorpusError
from ..languages import ENGLISH
from . import debian, debian_corpus, debian_docs, docs_align, docs_man, docs_pairs
from .corpus import Pair, write_tsv

DOC_KINDS = ("help", "man", "description")
DEFAULT_LANGS = ("es", "fr", "de")
TEST_PAIRS = {"help": 900, "man": 300, "description": 300}
DEV_PAIRS = {"help": 300, "man": 100, "description": 100}
HELD_OUT_SHARE = 3  # at most 1/3 of the groups with a kind are held out
TRANSLATIONS_URL = "http://deb.debian.org/debian/dists/bookworm/main/i18n/Translation-{lang}.{ext}"
# ---- the three sources -------------------------------------------------------------------


def counterpart(path: str, lang: str) -> str | None:
    """The path of a help page's translation into `lang`, or None when `path` is not an English page."""
    for pattern in debian_docs._HELP:
        found = re.fullmatch(pattern, path)
        if found:
            key = next(k for k, v in found.groupdict().items() if k.startswith("l") and v is not None)
            if found.group(key) not in debian_docs.ENGLISH_DIRS:
                return None
            return path[: found.start(key)] + lang + path[found.end(key) :]
    return None


def collect_help(
    docs_dir: Path,
    infos: dict[str, debian_docs.DocFiles],
    lang: str,
    entities: tuple[dict[str, str], dict[str, str]] = ({}, {}),
) -> tuple[list[Pair], list[str]]:
    """Help pages: (pairs, pages that could not be read); `entities`: the English and the
    translation's named entities (KDE's)."""
    where = {path: name for name in sorted(infos, reverse=True) for path in infos[name].help}
    pairs, unreadable = [], []
    for name in sorted(infos):
        for path in infos[name].help:
            other = counterpart(path, lang)
            if other is None or other not in where:
                continue
            try:
                found = docs_align.align_help(docs_dir / name / path, docs_dir / where[other] / other, entities)
            except CorpusError as e:
                unreadable.append(f"{name}/{path}: {e}")
                continue
            pairs += docs_pairs.pairs(found, name, "help", lang)
    return pairs, unreadable


def collect_man(
    docs_dir: Path, infos: dict[str, debian_docs.DocFiles], lang: str, translated: list[str]
) -> tuple[list[Pair], list[str]]:
    """Man pages: the packages' own translations into `lang`, and manpages-l10n's (`translated`)
    of the pages an allowed package ships and does not translate itself: (pairs, unreadable)."""
    english: dict[str, tuple[str, str]] = {}  # manN/NAME.N.gz -> (package, path)
    for name in sorted(infos, reverse=True):  # the first package in name order wins
        for path in infos[name].man:
            english[path.split("/", 3)[3]] = (name, path)
    todo: dict[str, tuple[str, str, Path]] = {}  # key -> (package, English path, translated file)
    for name in sorted(infos):
        own = {path.split("/", 3)[3]: path for path in infos[name].man}
        for path in infos[name].man_translated:
            key = path.split("/", 4)[4]  # usr/share/man/LL/manN/NAME.N.gz
            if path.split("/")[3] == lang and key in own:
                todo.setdefault(key, (name, own[key], docs_dir / name / path))
    l10n = docs_dir / debian_docs.manpages_package(lang)
    for path in sorted(translated):
        key = path.split("/", 4)[4]
        if key in english and key not in todo:
            todo[key] = (*english[key], l10n / path)
    pairs, unreadable = [], []
    for key in sorted(todo):
        name, english_path, translation = todo[key]
        try:
            found = docs_man.align_man(
                docs_man.read_man(docs_dir / name / english_path), docs_man.read_man(translation)
            )
        except CorpusError as e:
            unreadable.append(str(e))
            continue
        pairs += docs_pairs.pairs(found, name, "man", lang)
    return pairs, unreadable


def fetch_translations(i18n_dir: Path, lang: str, offline: bool) -> str:
    """The text of Translation-LANG (downloaded once into i18n_dir)."""
    i18n_dir.mkdir(parents=True, exist_ok=True)
    for ext, opener in (("xz", lzma.open), ("bz2", bz2.open)):
        cached = i18n_dir / f"Translation-{lang}.{ext}"
        if not cached.is_file() and not offline:
            try:
                with urllib.request.urlopen(TRANSLATIONS_URL.format(lang=lang, ext=ext), timeout=60) as r:
                    with open(cached.with_suffix(".part"), "wb") as f:
                        shutil.copyfileobj(r, f)
                cached.with_suffix(".part").rename(cached)
            except (urllib.error.URLError, OSError):
                continue
        if cached.is_file():
            try:
                with opener(cached, "rt", encoding="utf-8") as f:
                    return f.read()
            except (OSError, EOFError, lzma.LZMAError) as e:
                raise CorpusError(f"{cached}: unreadable ({e}); delete it to download it again") from e
    raise CorpusError(f"no Translation-{lang} in {i18n_dir}" + ("" if offline else " and none could be downloaded"))


def collect_descriptions(english: dict, translated: dict, packages: list[str], lang: str) -> list[Pair]:
    """Descriptions translated into `lang` from the English text that the package has (same
    Description-md5)."""
    pairs = []
    for name in sorted(packages):
        if name in english and name in translated and english[name][0] == translated[name][0]:
            pairs += docs_pairs.pairs(
                docs_align.align_description(english[name][1], translated[name][1]), name, "description", lang
            )
    return pairs


# ---- held-out packages -------------------------------------------------------------------


def _order(group: str) -> str:
    return hashlib.sha1(group.encode()).hexdigest()


def held_out(
    pairs: dict[str, list[Pair]], group_of: dict[str, str], wanted: dict[str, int], exclude: set[str]
) -> set[str]:
    """Groups to hold out so that each kind has `wanted` pairs in every language."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for lang, rows in pairs.items():
        for p in rows:
            counts[group_of[p.catalog]][(p.kind, lang)] += 1
    langs = sorted(pairs)
    chosen: set[str] = set()
    have: Counter = Counter()
    for kind in DOC_KINDS:
        with_kind = [g for g in counts if any(counts[g][(kind, lang)] for lang in langs)]
        candidates = sorted(
            (
                g
                for g in with_kind
                if g not in exclude
                and all(counts[g][(kind, lang)] for lang in langs)
                and all(counts[g][(k, lang)] <= wanted[k] for k in DOC_KINDS for lang in langs)
            ),
            key=_order,
        )
        room = len(with_kind) // HELD_OUT_SHARE - len(exclude & set(with_kind))
        for group in candidates[: max(room, 0)]:
            if min(have[(kind, lang)] for lang in langs) >= wanted[kind]:
                break
            if group not in chosen:
                chosen.add(group)
                have.update(counts[group])
    return chosen


# ---- build -------------------------------------------------------------------------------


def _counts(rows: list[Pair]) -> dict:
    return {
        kind: {"pairs": sum(p.kind == kind for p in rows), "packages": len({p.catalog for p in rows if p.kind == kind})}
        for kind in DOC_KINDS
    }


def build(
    out_dir: Path,
    cache: Path,
    package_list: Path | None = None,
    reserved_list: Path | None = None,
    langs: tuple[str, ...] = DEFAULT_LANGS,
    offline: bool = False,
    held_out_pairs: tuple[dict, dict] = (TEST_PAIRS, DEV_PAIRS),
    progress: Callable[[str, int], Callable[[int], None]] | None = None,
) -> dict:
    """Download (unless cached), extract, align, split and write OUT/LL/*.tsv + stats.json."""
    bar = progress or (lambda desc, total: lambda n: None)
    names = debian.read_package_list(package_list)
    reserved = debian_docs.read_reserved(reserved_list)
    source_of = debian_docs.package_sources(names + sorted(reserved))
    blocked = debian_docs.blocked_sources(reserved, source_of)
    packages = debian_docs.allowed(names, reserved, source_of)  # nothing reserved is fetched or read
    debs = cache / "debs"
    manpage_debs = cache / "manpages"
    if not offline:
        debian.download(packages, debs, bar("download", len(packages)))
        debian.download([debian_docs.manpages_package(lang) for lang in langs], manpage_debs)
    docs = cache / "docs"
    infos = debian_docs.extract_all(packages, debs, docs, tuple(sorted(langs)), blocked, bar("extract", len(packages)))
    if not infos:
        raise CorpusError(f"none of the {len(packages)} packages is in {debs} (run without --offline to download them)")
    group_of = {name: info.source for name, info in infos.items()}
    group_of.update({n: source_of.get(n, n) for n in packages if n not in group_of})
    english_descriptions = docs_align.read_translations(fetch_translations(cache / "i18n", "en", offline))
    pairs: dict[str, list[Pair]] = {}
    problems: dict[str, list[str]] = {}
    kde = debian.deb_for(debs, debian_docs.KDE_ENTITIES_PACKAGE) if debian_docs.KDE_ENTITIES_PACKAGE in infos else None
    customization = debian_docs.extract_kde_entities(kde, tuple(langs), docs) if kde else None

    def entities(lang: str) -> dict[str, str]:
        return docs_align.kde_entities(customization, lang) if customization else {}

    for lang in langs:
        help_pairs, bad_help = collect_help(docs, infos, lang, (entities("en"), entities(lang)))
        deb = debian.deb_for(manpage_debs, debian_docs.manpages_package(lang))
        translated = debian_docs.extract_manpages(deb, lang, docs) if deb else []
        man_pairs, bad_man = collect_man(docs, infos, lang, translated)
        descriptions = docs_align.read_translations(fetch_translations(cache / "i18n", lang, offline))
        pairs[lang] = help_pairs + man_pairs + collect_descriptions(english_descriptions, descriptions, packages, lang)
        problems[lang] = bad_help + bad_man
    test = held_out(pairs, group_of, held_out_pairs[0], set())
    dev = held_out(pairs, group_of, held_out_pairs[1], test)
    stats: dict = {
        "source": f"Debian packages ({package_list or 'bundled list'}) less reserved documentation",
        "packages_listed": len(names),
        # by name or source in the list, or by the source the .deb itself names
        "packages_reserved": sorted(
            n for n in names if n not in packages or (n not in infos and debian.deb_for(debs, n))
        ),
        "packages_not_in_cache": sorted(n for n in packages if debian.deb_for(debs, n) is None),
        "packages_read": len(infos),
        "test_groups": sorted(test),
        "dev_groups": sorted(dev),
        "languages": {},
    }
    for lang in langs:
        splits = debian_corpus.split(pairs[lang], group_of, groups=(test, dev))
        lang_dir = out_dir / lang
        lang_dir.mkdir(parents=True, exist_ok=True)
        for name, rows in splits.items():
            write_tsv(lang_dir / f"{name}.tsv", rows)
        lang_stats = {
            "languages": {"source": ENGLISH, "target": lang},
            "pairs_read": len(pairs[lang]),
            "read_by_kind": _counts(pairs[lang]),
            **{f"{k}_pairs": len(v) for k, v in splits.items()},
            "by_kind": {k: _counts(v) for k, v in splits.items()},
            "test_packages": sorted({p.catalog for p in splits["test"]}),
            "dev_packages": sorted({p.catalog for p in splits["dev"]}),
            "unreadable": problems[lang],
        }
        (lang_dir / "stats.json").write_text(json.dumps(lang_stats, indent=1) + "\n")
        stats["languages"][lang] = {k: v for k, v in lang_stats.items() if k not in ("languages", "unreadable")}
        stats["languages"][lang]["unreadable"] = len(problems[lang])
    (out_dir / "stats.json").write_text(json.dumps(stats, indent=1) + "\n")
    return stats
