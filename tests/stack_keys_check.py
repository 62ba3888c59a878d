"""Keys per caller on the container stacks (tests/compose/keys.sh, tests/kubernetes/run.sh): two
replicas sharing one Redis answer for the same keys (docs/keys.md).

Standard library only: it runs on the host, against each replica's HTTP API (port 5000) asked
directly and, optionally, the balancer's.

    python3 tests/stack_keys_check.py --key SECRET --rate-key SECRET --rate N
        --revoke 'COMMAND' --monitor 'COMMAND' [--balancer URL [--cacert FILE]] URL1 URL2 ...

--key: a key with no request limit (made with `traductor keys add`), --rate-key: one with
`--requests-per-minute N`. The checks, in order, each printing what it saw:

1. no key and a wrong key are refused with 403 by every replica;
2. --key is accepted by every replica: LibreTranslate's POST /translate (api_key in the body)
   and DeepL's POST /v2/translate (Authorization: DeepL-Auth-Key), and through the balancer;
2b. with --other-key: a glossary made with --key on the first replica is listed and used with
   it on every replica, and on none can --other-key list, read, use or delete it (404); with
   --admin, the administrator's token lists it; the maker deletes it;
3. 3 x N calls with --rate-key at once, spread over the replicas (threads): N +- 1 accepted in
   all, the others 429 with Retry-After, where a count per replica would have let more than
   N + 1 through (each replica gets more than N / 2 of the calls: the limit is one count for
   all of them, not N each);
4. /v2/usage on every replica answers, for each key, the characters of the calls accepted with
   it (len() of the texts, as the server counts them), whichever replica took them;
5. revocation: every replica accepts --key, then COMMAND (--revoke, e.g. `podman exec C
   traductor keys revoke NAME`) runs while each replica is asked again and again; the time of
   the revoking write is read from Redis' own log of commands (--monitor, e.g. `podman exec C
   redis-cli monitor`: each line starts with Redis' clock), and each replica must refuse the key
   (403) within a second of it.

Exit status 0 when every check held, 1 if not.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

TEXTS = ["Open the file", "Save the café menu"]  # 'é' is one character for the server and for len()
RATE_TEXT = "Cancel"
FAILED: list[str] = []
CONTEXT: ssl.SSLContext | None = None  # --cacert: an https balancer's certificate


def check(ok: bool, what: str) -> None:
    print(f"    {'ok' if ok else 'FAIL'}: {what}", flush=True)
    if not ok:
        FAILED.append(what)


def call(url: str, path: str, body: dict | None = None, key: str | None = None, deepl: bool = False, method=None):
    """(status, JSON or text, headers) of one call; a network error is status 0."""
    data = json.dumps(body).encode() if body is not None else None
    method = method or ("POST" if data else "GET")
    request = urllib.request.Request(url.rstrip("/") + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if deepl and key is not None:
        request.add_header("Authorization", f"DeepL-Auth-Key {key}")
    try:
        with urllib.request.urlopen(request, timeout=60, context=CONTEXT) as answer:
            status, text, headers = answer.status, answer.read().decode(), answer.headers
    except urllib.error.HTTPError as error:
        status, text, headers = error.code, error.read().decode(errors="replace"), error.headers
    except OSError as error:
        return 0, str(error), {}
    try:
        return status, json.loads(text), headers
    except ValueError:
        return status, text, headers


def libre(url: str, text: str, key: str | None):
    body = {"q": text, "source": "en", "target": "es"}
    if key is not None:
        body["api_key"] = key
    return call(url, "/translate", body)


def deepl(url: str, text: str, key: str):
    return call(url, "/v2/translate", {"text": [text], "target_lang": "ES", "source_lang": "EN"}, key, deepl=True)


def refused(urls: list[str]) -> None:
    print("== no key, a wrong key", flush=True)
    for url in urls:
        for label, key in (("no key", None), ("a wrong key", "trk_" + "0" * 40)):
            status, answer, _ = libre(url, "Cancel", key)
            check(status == 403, f"{url}: POST /translate with {label}: {status} {answer}")
        status, answer, _ = deepl(url, "Cancel", "trk_" + "1" * 40)
        check(status == 403, f"{url}: POST /v2/translate with a wrong key: {status} {answer}")


def accepted(urls: list[str], balancer: str | None, key: str) -> int:
    """Characters accepted with `key`, each text through each URL (LibreTranslate and DeepL)."""
    print("== the key made with `traductor keys add`, on every replica", flush=True)
    chars = 0
    for url in urls + ([balancer] if balancer else []):
        where = f"{url} (the balancer)" if url == balancer else url
        status, answer, _ = libre(url, TEXTS[0], key)
        ok = status == 200 and isinstance(answer, dict) and answer.get("translatedText")
        shown = answer["translatedText"] if ok else answer
        check(bool(ok), f"{where}: POST /translate with api_key: {status} {shown!r}")
        chars += len(TEXTS[0]) if status == 200 else 0
        status, answer, _ = deepl(url, TEXTS[1], key)
        ok = status == 200 and isinstance(answer, dict) and answer.get("translations")
        shown = answer["translations"][0]["text"] if ok else answer
        check(bool(ok), f"{where}: POST /v2/translate with DeepL-Auth-Key: {status} {shown!r}")
        chars += len(TEXTS[1]) if status == 200 else 0
    return chars


def listed(url: str, key: str) -> list[str]:
    """The glossary ids GET /v2/glossaries answers to `key` (none when it is refused)."""
    status, answer, _ = call(url, "/v2/glossaries", key=key, deepl=True)
    return [g["glossary_id"] for g in answer["glossaries"]] if status == 200 else []


def isolation(urls: list[str], key: str, other: str, admin: str | None) -> int:
    """A glossary made with `key` on the first replica: listed, read and used with it on every
    replica (one glossary store); another key cannot list, read, use or delete it on any (404, as
    if it did not exist); the administrator's key lists it. Returns the characters charged to `key`."""
    print("== glossaries belong to the key that made them", flush=True)
    body = {"name": "keys check", "source_lang": "en", "target_lang": "es", "entries": "file\tfichero\n"}
    body["entries_format"] = "tsv"
    status, made, _ = call(urls[0], "/v2/glossaries", body, key, deepl=True)
    check(status == 201 and isinstance(made, dict), f"{urls[0]}: POST /v2/glossaries with the key: {status}")
    if status != 201:
        return 0
    charged = 0
    gid = made["glossary_id"]
    path = f"/v2/glossaries/{gid}"
    use = {"text": ["Open the file"], "source_lang": "EN", "target_lang": "ES", "glossary_id": gid}
    for url in urls:
        mine = listed(url, key)
        status, answer, _ = call(url, "/v2/translate", use, key, deepl=True)
        used = answer["translations"][0]["text"] if status == 200 else answer
        charged += len(use["text"][0]) if status == 200 else 0
        check(gid in mine and status == 200, f"{url}: the maker lists it and uses it: {used!r}")
        theirs = listed(url, other)
        read = call(url, path, key=other, deepl=True)[0]
        used = call(url, "/v2/translate", use, other, deepl=True)[0]
        deleted = call(url, path, key=other, deepl=True, method="DELETE")[0]
        check(
            gid not in theirs and (read, used, deleted) == (404, 404, 404),
            f"{url}: another key: not listed ({len(theirs)} listed), GET {read}, used {used}, DELETE {deleted}",
        )
        if admin:
            check(gid in listed(url, admin), f"{url}: the administrator's key lists it")
    status = call(urls[-1], path, key=key, deepl=True, method="DELETE")[0]
    check(status == 204, f"{urls[-1]}: the maker deletes it: {status}")
    return charged


def rate(urls: list[str], key: str, limit: int) -> int:
    """3 x limit calls at once over the replicas; returns the characters accepted."""
    print(f"== a limit of {limit} requests a minute, {3 * limit} calls at once over {len(urls)} replicas", flush=True)
    jobs = [urls[i % len(urls)] for i in range(3 * limit)]
    with ThreadPoolExecutor(max_workers=min(12, len(jobs))) as pool:
        results = list(pool.map(lambda url: (url, *libre(url, RATE_TEXT, key)), jobs))
    by_url = {url: {} for url in urls}
    for url, status, _, _ in results:
        by_url[url][status] = by_url[url].get(status, 0) + 1
    for url, counts in by_url.items():
        print(f"    {url}: statuses {dict(sorted(counts.items()))}")
    ok_count = sum(1 for _, status, _, _ in results if status == 200)
    limited = [(answer, headers) for _, status, answer, headers in results if status == 429]
    check(abs(ok_count - limit) <= 1, f"accepted {ok_count} of {len(jobs)} calls, the limit being {limit} (+-1)")
    check(ok_count + len(limited) == len(jobs), f"every other call refused with 429: {len(limited)}")
    if limited:
        answer, headers = limited[0]
        retry = headers.get("Retry-After", "")
        check(retry.isdigit() and int(retry) >= 1, f"429 with Retry-After {retry!r}: {answer}")
    # with a count of its own, each replica would have accepted up to `limit` of the calls it got
    apart = sum(min(limit, sum(counts.values())) for counts in by_url.values())
    check(
        apart > limit + 1,
        f"with a count per replica {apart} would have been accepted; one count for all accepted {ok_count}",
    )
    return ok_count * len(RATE_TEXT)


def usage(urls: list[str], keys: dict[str, tuple[str, int]]) -> None:
    print("== /v2/usage on every replica", flush=True)
    for label, (key, sent) in keys.items():
        for url in urls:
            status, answer, _ = call(url, "/v2/usage", key=key, deepl=True)
            count = answer.get("character_count") if isinstance(answer, dict) else None
            check(
                status == 200 and count == sent,
                f"{url}: {label}'s /v2/usage {status} {answer}; characters sent with it: {sent}",
            )


def revoke(urls: list[str], key: str, revoke_command: str, monitor_command: str) -> None:
    print("== revocation", flush=True)
    for url in urls:
        status, answer, _ = call(url, "/v2/usage", key=key, deepl=True)
        check(status == 200, f"{url}: the key is accepted before the revocation: {status} {answer}")
    monitor = subprocess.Popen(shlex.split(monitor_command), stdout=subprocess.PIPE, text=True, bufsize=1)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(monitor.stdout), daemon=True)
    reader.start()
    time.sleep(0.5)  # MONITOR is listening once redis-cli has connected
    refusals: dict[str, float] = {}
    stop = threading.Event()

    def poll(url: str) -> None:
        while not stop.is_set():
            status, _, _ = call(url, "/v2/usage", key=key, deepl=True)
            if status == 403:
                refusals[url] = time.time()  # when the refusal arrived: an upper bound
                return
            time.sleep(0.02)

    pollers = [threading.Thread(target=poll, args=(url,), daemon=True) for url in urls]
    for poller in pollers:
        poller.start()
    started = time.time()
    done = subprocess.run(shlex.split(revoke_command), capture_output=True, text=True)
    returned = time.time()
    print(f"    {revoke_command}: exit {done.returncode} in {returned - started:.2f} s: {done.stdout.strip()}")
    for poller in pollers:
        poller.join(timeout=10)
    stop.set()
    time.sleep(0.3)
    monitor.terminate()
    monitor.wait(timeout=10)
    reader.join(timeout=5)
    writes = [line for line in lines if re.search(r'"hset" "traductor:\{[^}]*\}:key".*"revoked" "1"', line, re.I)]
    if not writes:
        check(False, f"the revoking write in Redis' command log ({len(lines)} lines read): none found")
        return
    written = float(writes[0].split()[0])
    print(f"    Redis' log: {writes[0][:140]}...")
    print(f"    the write came {written - started:.2f} s after the command started")
    for url in urls:
        if url not in refusals:
            check(False, f"{url}: still accepts the revoked key 10 s after the revocation")
            continue
        took = refusals[url] - written
        check(took <= 1.0, f"{url}: refused the revoked key (403) {took:.3f} s after Redis recorded the revocation")
    for url in urls:
        status, answer, _ = libre(url, "Cancel", key)
        check(status == 403, f"{url}: POST /translate with the revoked key: {status} {answer}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("urls", nargs="+", help="each replica's HTTP API, asked directly")
    parser.add_argument("--key", required=True)
    parser.add_argument("--rate-key", required=True)
    parser.add_argument("--rate", type=int, required=True, help="--rate-key's requests a minute")
    parser.add_argument("--revoke", required=True, help="command that revokes --key")
    parser.add_argument("--monitor", required=True, help="command printing Redis' MONITOR log")
    parser.add_argument("--balancer", default=None, help="the balancer's HTTP API")
    parser.add_argument("--cacert", default=None, help="the certificate of an https URL")
    parser.add_argument("--other-key", default=None, help="a third key: may not see --key's glossaries")
    parser.add_argument("--admin", default=None, help="the administrator's token: sees them")
    args = parser.parse_args()
    if args.cacert:
        global CONTEXT
        CONTEXT = ssl.create_default_context(cafile=args.cacert)
    refused(args.urls)
    sent = accepted(args.urls, args.balancer, args.key)
    if args.other_key:
        sent += isolation(args.urls, args.key, args.other_key, args.admin)
    rate_sent = rate(args.urls, args.rate_key, args.rate)
    usage(args.urls, {"the key": (args.key, sent), "the rate-limited key": (args.rate_key, rate_sent)})
    revoke(args.urls, args.key, args.revoke, args.monitor)
    print(f"== {'every check held' if not FAILED else f'{len(FAILED)} check(s) failed'}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
