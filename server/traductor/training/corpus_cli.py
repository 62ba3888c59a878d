"""`traductor corpus`: build the parallel corpus (the work is in debian_corpus.py and corpus.py).

traductor corpus --out DIR                       Debian packages of the bundled list (default)
traductor corpus --out DIR --packages LIST       another list of packages
traductor corpus --out DIR --lang fr             another target language, same packages
traductor corpus --out DIR --lang fr --into-english   the same pairs the other way round (fr -> en)
traductor corpus --out DIR --offline             only what the cache already holds
traductor corpus --docs --out DIR                documentation (help pages, man pages, package
                                                 descriptions) into DIR/es, DIR/fr, DIR/de
traductor corpus --out DIR --catalogs DIR        the .mo files of a folder (one catalog = one program)
traductor corpus --out DIR --tsv FILE            a user's own source<TAB>target<TAB>catalog file
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..errors import CorpusError, require_torch
from ..languages import LEGACY_PAIR


def default_cache() -> Path:
    """$TRADUCTOR_HOME/debian, else ~/.cache/traductor/debian (where the serving cache lives too)."""
    home = (
        os.environ.get("TRADUCTOR_HOME") or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "traductor"
    )
    return Path(home) / "debian"


def _progress(desc: str, total: int):
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit="pkg", file=sys.stderr, dynamic_ncols=True)

    def advance(n: int) -> None:
        bar.update(n)
        if bar.n >= total:
            bar.close()

    return advance


def run(args) -> None:
    from . import corpus, debian_corpus

    if args.docs:
        require_torch("traductor corpus --docs", ("lxml",))
        from . import docs_corpus

        if args.catalogs or args.tsv or args.dev or args.test or args.into_english:
            raise CorpusError(
                "--docs builds from Debian packages: --catalogs, --tsv, --dev, --test and --into-english do not apply"
            )
        langs = tuple(args.lang.split(",")) if args.lang else docs_corpus.DEFAULT_LANGS
        stats = docs_corpus.build(
            Path(args.out),
            Path(args.cache) if args.cache else default_cache(),
            Path(args.packages) if args.packages else None,
            Path(args.reserved) if args.reserved else None,
            langs,
            args.offline,
            progress=None if args.quiet else _progress,
        )
    elif args.catalogs or args.tsv:
        if args.into_english:
            raise CorpusError("--into-english reverses Debian catalogs: with --catalogs/--tsv, swap the columns")
        dev = tuple(args.dev.split(",")) if args.dev else corpus.DEFAULT_DEV
        test = tuple(args.test.split(",")) if args.test else corpus.DEFAULT_TEST
        stats = corpus.build(Path(args.out), Path(args.catalogs or corpus.DEFAULT_CATALOG_DIR), args.tsv, dev, test)
    else:
        if args.dev or args.test:
            raise CorpusError("--dev/--test name catalogs of --catalogs or --tsv; Debian splits are chosen by kind")
        stats = debian_corpus.build(
            Path(args.out),
            Path(args.cache) if args.cache else default_cache(),
            Path(args.packages) if args.packages else None,
            args.lang or LEGACY_PAIR["target"],
            args.offline,
            args.max_per_package,
            held_out=(args.test_pairs, args.dev_pairs),
            progress=None if args.quiet else _progress,
            into_english=args.into_english,
        )
        stats = {k: v for k, v in stats.items() if k != "pairs_per_package"}  # that one is in stats.json
    print(json.dumps(stats, indent=2))


def register(sub) -> None:
    p = sub.add_parser("corpus", help="build a parallel corpus from the gettext catalogs of Debian packages")
    p.add_argument("--out", required=True, help="directory for train.tsv, dev.tsv, test.tsv, common.tsv, stats.json")
    p.add_argument("--packages", help="package list, one name a line (default: the bundled debian-es-catalogs.txt)")
    p.add_argument(
        "--cache", help="folder for downloaded .debs and extracted catalogs (default: ~/.cache/traductor/debian)"
    )
    target = LEGACY_PAIR["target"]
    p.add_argument(
        "--lang",
        help=f"target language: the LANG of LANG/LC_MESSAGES (default: {target}); with --docs, a comma-separated "
        "list (default: es,fr,de)",
    )
    p.add_argument(
        "--docs",
        action="store_true",
        help="documentation instead of catalogs: help pages, translated man pages and package descriptions",
    )
    p.add_argument(
        "--reserved",
        help="with --docs: packages whose documentation is never read (default: bundled reserved-docs-packages.txt)",
    )
    p.add_argument(
        "--into-english",
        action="store_true",
        help="catalog pairs the other way round: LANG -> English (dev and test hold out the same packages)",
    )
    p.add_argument("--offline", action="store_true", help="download nothing: use the packages already in the cache")
    p.add_argument("--max-per-package", type=int, default=0, help="at most N training pairs from one package (0: all)")
    p.add_argument("--test-pairs", type=int, default=900, help="test pairs wanted per kind of program (default: 900)")
    p.add_argument("--dev-pairs", type=int, default=350, help="dev pairs wanted per kind of program (default: 350)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--catalogs", help="instead of Debian packages: a directory of .mo files, one per program")
    p.add_argument("--tsv", type=Path, help="instead of Debian packages: a source<TAB>target<TAB>catalog file")
    p.add_argument("--dev", help="with --catalogs/--tsv: catalogs held out for dev (comma-separated)")
    p.add_argument("--test", help="with --catalogs/--tsv: catalogs held out for test (comma-separated)")
    p.set_defaults(func=run)
