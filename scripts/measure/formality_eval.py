"""Whether `formality` gives the register asked for: hand-written English interface sentences
(scripts/measure/formality_sentences.txt: questions to the user, imperatives, possessives, every
one addressing the reader) translated by `traductor translate --to LANG --formality F` (the
offline CLI, as served: cut into sentences, a register asked is a beam of 4, the decoders' register
bans), each output's register read by traductor.text.address (verbs, possessives and pronouns:
informal, formal, mixed or neutral), per language and formality value:

    python scripts/measure/formality_eval.py --lang es --lang fr --lang de --out docs/model/formality.json
    python scripts/measure/formality_eval.py --lang es --http http://127.0.0.1:8080   # a running server
    python scripts/measure/formality_eval.py --lang it --model /tmp/en-it --formality less --formality more

Languages: es, fr, de, it, pt-BR, nl, ru (those traductor.text.address reads). `--model` measures
a bundle instead of the packaged model of `--to` (one language then: the bundle's target).

A setting passes (issue 57) when at least 90% of its outputs are in the register asked and none is
mixed. Brazilian Portuguese shows a register only through its pronouns (você / o senhor): its
imperatives and seu/sua belong to both ("Digite seu nome" is right in either), so there the 90%
counts the sentences whose English says "you", and each of the others passes unless it is in the
other register or mixed. `less` asks for the informal register, `more` for the formal one; `default` is read only.
The verdict per language, the registers whose setting passed as a JSON list ready for a
config.json's `"registers"` field (docs/languages.md, "A register per model"), is printed last
and written under "registers" in --out; a register whose setting was not measured is left out.
A register the model delivers by a rewrite (its config.json's `"register_rewrites"`: it and pt-BR
formal) passes or fails here like the others, but stays out of `"registers"`, which lists what
the tags deliver.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "server"))

from traductor.text import address  # noqa: E402
from traductor.text.address_text import says_you  # noqa: E402

SENTENCES = Path(__file__).with_name("formality_sentences.txt")
ASKED = {"less": address.INFORMAL, "more": address.FORMAL, "prefer_less": address.INFORMAL, "default": None}
VERDICT_OF = {"more": address.FORMAL, "less": address.INFORMAL}  # in config.json's order: formal, informal
PRONOUN_ONLY = {"pt", "pt-BR"}  # registers shown only by pronouns: judged where the English says "you"


def translate(
    sentences: list[str], lang: str, formality: str, threads: int, cli: str, extra: list[str], model: str | None = None
) -> list[str]:
    which = ["--model", model] if model else ["--to", lang]
    cmd = [cli, "translate", *which, "--threads", str(threads), "--formality", formality, *extra]
    done = subprocess.run(cmd, input="".join(s + "\n" for s in sentences), capture_output=True, text=True)
    if done.returncode != 0 and not done.stdout:
        raise SystemExit(f"{' '.join(cmd)}: {done.stderr.strip()}")
    outs = done.stdout.splitlines()
    if len(outs) != len(sentences):
        raise SystemExit(f"{' '.join(cmd)}: {len(outs)} lines for {len(sentences)}: {done.stderr.strip()}")
    return outs


def translate_served(sentences: list[str], lang: str, formality: str, url: str) -> list[str]:
    """The same through a running server's DeepL route (POST /v2/translate, JSON body)."""
    body = {"text": sentences, "target_lang": lang.upper(), "source_lang": "EN", "formality": formality}
    request = urllib.request.Request(
        f"{url.rstrip('/')}/v2/translate", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=600) as response:
        return [t["text"] for t in json.load(response)["translations"]]


def measure(sentences: list[str], outs: list[str], lang: str, asked: str | None) -> dict:
    rows = []
    for source, out in zip(sentences, outs):
        found = address.markers(out, lang, source)
        rows.append({"source": source, "output": out, "register": address.read(out, lang, source), **found})
    labels = (address.FORMAL, address.INFORMAL, address.MIXED, address.NEUTRAL)
    counts = {label: sum(row["register"] == label for row in rows) for label in labels}
    result = {"counts": counts, "outputs": rows}
    if asked:
        judged = [row for row in rows if lang not in PRONOUN_ONLY or says_you(row["source"])]
        others = [row for row in rows if lang in PRONOUN_ONLY and not says_you(row["source"])]
        in_register = sum(row["register"] == asked for row in judged)
        result["in_register"] = round(100 * in_register / len(judged), 1) if judged else 0.0
        result["mixed"] = counts[address.MIXED]
        result["passes"] = result["in_register"] >= 90 and counts[address.MIXED] == 0
        if lang in PRONOUN_ONLY:
            result["judged"] = len(judged)  # the sentences that say "you"
            result["others_off_register"] = sum(row["register"] not in (asked, address.NEUTRAL) for row in others)
            result["passes"] = result["passes"] and result["others_off_register"] == 0
    return result


def verdict(results: dict) -> list[str] | None:
    """The registers whose setting passed (`results`: a language's results by formality value),
    for config.json's "registers"; None unless both `less` and `more` were measured (a list of the one
    measured would leave out the other, which nobody tried)."""
    if not all(f in results for f in VERDICT_OF):
        return None
    return [register for f, register in VERDICT_OF.items() if results.get(f, {}).get("passes")]


def read_sentences(path: Path) -> list[str]:
    return [s for s in path.read_text().splitlines() if s.strip()]


def split_sentences(path: Path) -> list[str]:
    """The sources of a test split (`traductor corpus`'s test.tsv: source TAB reference) with the
    word "you" (address_text.says_you; "your" alone is not counted), each once, in file order:
    real messages where the register shows."""
    sources = (line.split("\t", 1)[0] for line in path.read_text(encoding="utf-8").splitlines() if "\t" in line)
    return list(dict.fromkeys(s for s in sources if s.strip() and says_you(s)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", action="append", required=True, help=", ".join(address.LANGUAGES) + " (repeat)")
    ap.add_argument("--formality", action="append", help="values to measure (default: default, less, more)")
    ap.add_argument("--sentences", type=Path, default=SENTENCES)
    ap.add_argument("--split", type=Path, help="instead: a test split (TSV) whose sources that say 'you' are measured")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cli", default=str(ROOT / ".venv/bin/traductor"))
    ap.add_argument("--extra", default="", help="more flags for traductor translate (e.g. '--beam 8')")
    ap.add_argument("--http", help="a running server's address (http://127.0.0.1:PORT): its /v2/translate")
    ap.add_argument("--model", help="a bundle to measure instead of the packaged model of --lang (one --lang)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.model and (args.http or len(args.lang) != 1):
        ap.error("--model takes one --lang (the bundle's target) and no --http")
    for lang in args.lang:
        try:
            address.read("", lang)
        except ValueError as e:
            ap.error(str(e))
    sentences = split_sentences(args.split) if args.split else read_sentences(args.sentences)
    where = str(args.split or args.sentences)
    report: dict = {"sentences": where, "n": len(sentences), "extra": args.extra, "languages": {}}
    report["through"] = f"{args.http}/v2/translate" if args.http else "traductor translate"
    report["model"] = args.model or "packaged"
    report["registers"] = {}
    for lang in args.lang:
        report["languages"][lang] = {}
        for formality in args.formality or ["default", "less", "more"]:
            start = time.perf_counter()
            if args.http:
                outs = translate_served(sentences, lang, formality, args.http)
            else:
                outs = translate(sentences, lang, formality, args.threads, args.cli, args.extra.split(), args.model)
            result = measure(sentences, outs, lang, ASKED.get(formality))
            result["seconds"] = round(time.perf_counter() - start, 1)
            report["languages"][lang][formality] = result
            shown = {k: v for k, v in result.items() if k != "outputs"}
            print(lang, formality, json.dumps(shown), flush=True)
        registers = verdict(report["languages"][lang])
        if registers is not None:
            report["registers"][lang] = registers
            print(lang, "registers", json.dumps(registers), flush=True)
    if args.out:
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
