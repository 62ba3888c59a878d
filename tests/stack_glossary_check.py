"""The glossary checks of the container stacks (tests/compose/run.sh, tests/kubernetes/checks.sh):
glossaries stored through DeepL's API v2 on one replica are listed and applied by every replica,
and by replicas started later (the glossary volume: docs/compose.md, docs/kubernetes.md).

Standard library only: it runs on the host against a published port, and inside a translator
container (`podman exec -i C python3 - URL check ID < tests/stack_glossary_check.py`) against
that replica alone.

    python3 tests/stack_glossary_check.py URL create            prints the new glossary's id
    python3 tests/stack_glossary_check.py URL check ID [--times N]
        ID is listed (GET /v2/glossaries, GET /v2/glossaries/ID and its entries), and N calls of
        /v2/translate with it use its terms, placeholders kept; a call without it does not
    python3 tests/stack_glossary_check.py URL race [--count N] [--also URL2 ...]
        N glossaries created at once, then deleted at once (threads; through a balancer, or
        spread over URL and each --also URL: several replicas): every one is listed after the
        creates, none after the deletes, on every URL
    python3 tests/stack_glossary_check.py URL delete ID

Options: --key KEY (DeepL-Auth-Key; any word when the server has no token), --cacert FILE (an
https URL's certificate). Prints what it saw; exit status 0 when the check holds, 1 if not.
"""

from __future__ import annotations

import argparse
import json
import ssl
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

NAME = "stack check"
ENTRIES = {"file": "fichero", "settings": "ajustes"}  # terms the en-es model does not choose by itself
TEXTS = ["Cannot open the file %s.", "Save the settings"]


class Api:
    def __init__(self, url: str, key: str, cacert: str | None):
        self.url, self.key = url.rstrip("/"), key
        self.context = ssl.create_default_context(cafile=cacert) if cacert else None

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, str]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", f"DeepL-Auth-Key {self.key}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=60, context=self.context) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def json(self, method: str, path: str, body: dict | None = None, status: int = 200):
        code, text = self.call(method, path, body)
        if code != status:
            raise SystemExit(f"    {method} {path}: {code} {text[:300]} (expected {status})")
        return json.loads(text) if text else None

    def create(self, name: str = NAME) -> dict:
        entries = "".join(f"{s}\t{t}\n" for s, t in ENTRIES.items())
        body = {"name": name, "source_lang": "en", "target_lang": "es", "entries": entries, "entries_format": "tsv"}
        return self.json("POST", "/v2/glossaries", body, status=201)

    def translate(self, glossary_id: str | None) -> list[str]:
        body = {"text": TEXTS, "source_lang": "EN", "target_lang": "ES"}
        if glossary_id:
            body["glossary_id"] = glossary_id
        return [t["text"] for t in self.json("POST", "/v2/translate", body)["translations"]]

    def listed(self) -> set[str]:
        return {g["glossary_id"] for g in self.json("GET", "/v2/glossaries")["glossaries"]}


def uses_terms(texts: list[str]) -> bool:
    """Each translation holds its text's glossary term, and the placeholder of the first."""
    first, second = (t.lower() for t in texts)
    return "fichero" in first and "%s" in first and "ajustes" in second


def check(api: Api, glossary_id: str, times: int) -> bool:
    ok = True
    if glossary_id not in api.listed():
        print(f"    {glossary_id} is not in GET /v2/glossaries")
        ok = False
    info = api.json("GET", f"/v2/glossaries/{glossary_id}")
    code, tsv = api.call("GET", f"/v2/glossaries/{glossary_id}/entries")
    entries = dict(line.split("\t") for line in tsv.splitlines() if line)
    if (info["name"], info["entry_count"], code, entries) != (NAME, len(ENTRIES), 200, ENTRIES):
        print(f"    glossary as read back: {info}, entries {code} {tsv!r}")
        ok = False
    answers = [api.translate(glossary_id) for _ in range(times)]
    wrong = [a for a in answers if not uses_terms(a)]
    plain = api.translate(None)
    if wrong:
        print(f"    {len(wrong)} of {times} calls with the glossary did not use its terms: {wrong[0]}")
        ok = False
    if "fichero" in plain[0].lower():
        print(f"    without the glossary the model already says 'fichero': {plain[0]!r} (the check proves nothing)")
        ok = False
    shown = ", ".join(f"'{s}' -> '{t}'" for s, t in zip(TEXTS, answers[0]))
    print(
        f"    glossary {glossary_id} listed ({info['entry_count']} entries, {info['source_lang']}->"
        f"{info['target_lang']}); {times - len(wrong)} of {times} calls with it used its terms: {shown}; "
        f"without it: '{TEXTS[0]}' -> '{plain[0]}'"
    )
    return ok


def race(apis: list[Api], count: int) -> bool:
    """Create i goes to apis[i % len], delete i to the next one: each replica deletes what
    another made."""
    with ThreadPoolExecutor(count) as pool:
        made = list(pool.map(lambda i: apis[i % len(apis)].create(f"{NAME} race {i}")["glossary_id"], range(count)))
    after_create = [api.listed() for api in apis]
    with ThreadPoolExecutor(count) as pool:
        delete = lambda i: apis[(i + 1) % len(apis)].call("DELETE", f"/v2/glossaries/{made[i]}")[0]  # noqa: E731
        codes = list(pool.map(delete, range(count)))
    after_delete = [api.listed() for api in apis]
    lost = set().union(*(set(made) - listed for listed in after_create))
    kept = set().union(*(set(made) & listed for listed in after_delete))
    print(
        f"    {count} glossaries created at once through {len(apis)} URL(s): every one listed on each: "
        f"{not lost}; deleted at once: {codes.count(204)} answered 204, {len(kept)} still listed"
    )
    return len(set(made)) == count and not lost and codes == [204] * count and not kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url")
    parser.add_argument("action", choices=["create", "check", "race", "delete"])
    parser.add_argument("glossary_id", nargs="?")
    parser.add_argument("--times", type=int, default=1)
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--key", default="any")
    parser.add_argument("--cacert")
    parser.add_argument("--also", action="append", default=[], help="race: another replica's URL")
    args = parser.parse_args()
    api = Api(args.url, args.key, args.cacert)
    if args.action == "create":
        print(api.create()["glossary_id"])
        return 0
    if args.action == "race":
        return 0 if race([api, *(Api(url, args.key, args.cacert) for url in args.also)], args.count) else 1
    if not args.glossary_id:
        parser.error(f"{args.action} needs a glossary id")
    if args.action == "delete":
        code, text = api.call("DELETE", f"/v2/glossaries/{args.glossary_id}")
        print(f"    DELETE: {code} {text}".rstrip())
        return 0 if code == 204 else 1
    return 0 if check(api, args.glossary_id, args.times) else 1


if __name__ == "__main__":
    sys.exit(main())
