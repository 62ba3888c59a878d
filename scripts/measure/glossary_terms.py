"""Term use of glossaries on the held-out test split (docs/glossary.md, figure a).

    python scripts/measure/glossary_terms.py CORPUS/test.tsv [--model en-es] [--out report.json]

The glossary (TERMS below) gives terms of Spanish software vocabulary a translation the model
does not choose by itself ("file -> fichero": the model writes "archivo"). The test set is every
line of the test split holding one of the terms (the glossary's own matcher). Each line is
translated (greedy, or --beam N; the packaged int8 bundle, through the serving scheduler) four ways:

    none     no glossary
    mask     each term behind a <phK> placeholder token whose value is the target form
             (traductor.glossary.masking; the served mechanism's second pass)
    switch   the target form written into the source in place of the term (what an imported
             model without placeholder tokens gets)
    post     the served mechanism (service/glossed.py, with the same functions): the line
             translated without a glossary, then the model's own translation of each term (the
             term translated alone, and its plural) replaced by the glossary's; a line where it
             is not found falls back to `mask` (two decodes for such a line)

and scored: share of lines that use every glossary term (the target form, or its singular for a
plural occurrence, as a whole word, case-insensitive), placeholders kept, chrF against the
references rewritten with the glossary terms (REWRITE: the usual translations of each term in the
references replaced by the glossary's, a Spanish determiner before it made to agree), chrF against
the original references, and the lines where a determiner of the other gender stands right
before a glossary target ("la directorio").
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import sacrebleu

from traductor.engine.bundle import scan
from traductor.engine.scheduler import Scheduler
from traductor.engine.translator import OnnxTranslator, drive
from traductor.glossary import Glossary
from traductor.glossary.agreement import agree
from traductor.glossary.forms import plural
from traductor.glossary.masking import mask, switch, terms, unmark
from traductor.glossary.substitute import sources as term_sources
from traductor.glossary.substitute import substitute
from traductor.model import placeholders
from traductor.options import DecodingOptions, resolve
from traductor.packaged import MODELS_DIR

TERMS = {
    "file": "fichero",
    "folder": "directorio",
    "settings": "ajustes",
    "password": "clave",
    "computer": "ordenador",
    "link": "vínculo",
    "error": "fallo",
    "tab": "lengüeta",
    "bookmark": "favorito",
    "file name": "nombre de fichero",
    "home folder": "directorio personal",
}
# the translations of the terms in the references, and what they become with the glossary
REWRITE = {
    "archivo": "fichero",
    "carpeta": "directorio",
    "configuración": "ajustes",
    "preferencias": "ajustes",
    "contraseña": "clave",
    "equipo": "ordenador",
    "computadora": "ordenador",
    "enlace": "vínculo",
    "error": "fallo",
    "pestaña": "lengüeta",
    "marcador": "favorito",
}


def _words(forms: dict[str, str]) -> dict[str, str]:
    out = {}
    for a, b in forms.items():
        out[a], out[plural(a, "es")] = b, plural(b, "es")
    return out


def _replace(text: str, table: dict[str, str]) -> str:
    """The references rewritten: each usual translation of a term as the glossary's, its Spanish
    determiner made to agree as a person rewriting it would (glossary.agreement, the served rule)."""
    if not table:
        return text
    words = "|".join(re.escape(w) for w in sorted(table, key=len, reverse=True))
    out, at = [], 0
    for m in re.finditer(rf"(?<!\w)({words})(?!\w)", text, re.I):
        new = table[m.group(0).lower()]
        cased = new[:1].upper() + new[1:] if m.group(0)[:1].isupper() else new
        before, capital = agree(text[at : m.start()], m.group(0), new, "es")
        out += [before, cased[:1].upper() + cased[1:] if capital else cased]
        at = m.end()
    return "".join(out) + text[at:]


# the glossary targets' genders, and determiners by gender: "la directorio" is a determiner of the
# model's own word left before the glossary's
GENDER = {"fichero": "m", "directorio": "m", "ajustes": "m", "clave": "f", "ordenador": "m", "vínculo": "m"}
GENDER |= {"fallo": "m", "lengüeta": "f", "favorito": "m", "nombre": "m"}
DETERMINERS = {"el": "m", "del": "m", "al": "m", "un": "m", "este": "m", "ese": "m", "los": "m", "unos": "m"}
DETERMINERS |= {"estos": "m", "la": "f", "una": "f", "esta": "f", "esa": "f", "las": "f", "unas": "f", "estas": "f"}
_AGREE = re.compile(r"(?<!\w)(" + "|".join(DETERMINERS) + r")\s+(\w+)", re.I)


def _gender(word: str) -> str | None:
    word = word.lower()
    for form in (word, word[:-1] if word.endswith("s") else "", word[:-2] if word.endswith("es") else ""):
        if form in GENDER:
            return GENDER[form]
    return None


def disagreements(text: str) -> int:
    """Determiners right before a glossary target of the other gender."""
    return sum(1 for m in _AGREE.finditer(text) if _gender(m.group(2)) not in (None, DETERMINERS[m.group(1).lower()]))


def uses_terms(glossary: Glossary, source: str, output: str) -> bool:
    out = output.casefold()
    for f, _ in terms(glossary, source):
        forms = {f.target.casefold(), plural(f.target, "es").casefold()}
        if not any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", out) for w in forms):
            return False
    return True


def plurals(glossary: Glossary, source: str, output: str) -> tuple[int, int]:
    """(plural occurrences whose target's plural is in `output`, plural occurrences in `source`)."""
    found = [f for f, _ in terms(glossary, source) if f.plural]
    out = output.casefold()
    have = sum(bool(re.search(rf"(?<!\w){re.escape(plural(f.target, 'es').casefold())}(?!\w)", out)) for f in found)
    return have, len(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("test", type=Path)
    parser.add_argument("--model", default="en-es")
    parser.add_argument("--rows", type=int, default=32)
    parser.add_argument("--beam", type=int, default=1, help="beam size (1: greedy)")
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--stats", type=Path, help="a corpus stats.json: keep only its test_packages (the model's own held-out split)"
    )
    args = parser.parse_args()
    glossary = Glossary("en", "es", tuple(TERMS.items()))
    rows = [line.rstrip("\n").split("\t") for line in args.test.open(encoding="utf-8")]
    keep = set(json.loads(args.stats.read_text())["test_packages"]) if args.stats else None
    rows = [r for r in rows if keep is None or (len(r) > 2 and r[2] in keep)]
    lines = [(r[0], r[1]) for r in rows if len(r) >= 2 and terms(glossary, r[0])]
    sources = [s for s, _ in lines]
    translator = OnnxTranslator.load(scan(MODELS_DIR)[args.model], threads=2, max_rows=args.rows)
    tok = translator.tokenizer

    def run(encoded: list[tuple[list[int], list[str]]]) -> list[str]:
        scheduler = Scheduler(translator.runner, tok, max_rows=args.rows, max_queue=len(encoded) + 1)
        options = DecodingOptions(beam_size=args.beam)
        jobs = [(ids, v, resolve(options, len(ids), translator.limits)) for ids, v in encoded]
        return [e.text for e in drive(scheduler, jobs)]

    def masked(s: str):
        m = mask(s, terms(glossary, s), marked=True)
        return tok.encode_masked(m.text) + [tok.eos_id], m.values

    started, out = time.monotonic(), {}
    out["none"] = run([tok.encode(s) for s in sources])
    out["mask"] = [unmark(t) for t in run([masked(s) for s in sources])]
    out["switch"] = run([tok.encode(switch(s, terms(glossary, s))) for s in sources])
    # post: the served mechanism (service/glossed.py): the model's own word for each term (the
    # term alone, both numbers) replaced in `none`, else `mask`
    alone_texts = sorted({t for s in sources for f, _ in terms(glossary, s) for t in term_sources(f)})
    own = dict(zip(alone_texts, run([tok.encode(t) for t in alone_texts])))
    post, found = [], 0
    for s, none, fallback in zip(sources, out["none"], out["mask"]):
        text = substitute(none, terms(glossary, s), own, "es")
        found += text is not None
        post.append(text if text is not None else fallback)
    out["post"] = post
    refs = [r for _, r in lines]
    rewritten = [_replace(r, _words(REWRITE)) for r in refs]
    report = {"lines": len(lines), "seconds": round(time.monotonic() - started, 1), "post_found": found}
    for name, hyps in out.items():
        kept = [placeholders.preserved(s, h) for s, h in zip(sources, hyps)]
        report[name] = {
            "term_use": round(100 * sum(uses_terms(glossary, s, h) for s, h in zip(sources, hyps)) / len(lines), 1),
            "plural_occurrences_in_the_plural": "{}/{}".format(
                *map(sum, zip(*(plurals(glossary, s, h) for s, h in zip(sources, hyps))))
            ),
            "placeholders_kept": f"{sum(k for k, _ in kept)}/{sum(n for _, n in kept)}",
            "chrf_rewritten": round(sacrebleu.corpus_chrf(hyps, [rewritten]).score, 2),
            "chrf_original": round(sacrebleu.corpus_chrf(hyps, [refs]).score, 2),
            "lines_with_a_determiner_of_the_other_gender": sum(disagreements(h) > 0 for h in hyps),
        }
    report["misses"] = {
        name: [(s, h) for s, h in zip(sources, hyps) if not uses_terms(glossary, s, h)]
        for name in ("mask", "post")
        for hyps in [out[name]]
    }
    lost = lambda s, h: placeholders.preserved(s, h)[0] < len(placeholders.find(s))  # noqa: E731
    report["placeholders_lost"] = {
        name: [(s, h) for s, h in zip(sources, out[name]) if lost(s, h)] for name in ("none", "mask", "post")
    }
    report["examples"] = [
        {"source": s, "reference": r, **{k: v[i] for k, v in out.items()}}
        for i, (s, r) in enumerate(zip(sources, rewritten))
        if i % max(1, len(sources) // 12) == 0
    ]
    text = json.dumps(report, ensure_ascii=False, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
