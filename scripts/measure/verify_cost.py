"""What the verifier (server/traductor/text/verify.py) costs a segment, and how much of it is
translate-toolkit's checks (text/toolkit_checks.py).

    python scripts/measure/verify_cost.py [--rounds 200]

The pairs are hand-written (source, output) pairs of the kinds issue 53 reported, right and
damaged, half of them plain sentences with nothing to repair; each is verified `--rounds` times.
Prints microseconds per segment (the median round's mean) for the whole verifier and for the
toolkit's checks alone, with the machine's CPU.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from traductor.text import toolkit_checks
from traductor.text.verify import verify

PAIRS = [
    ("es", "Save the file before closing.", "Guarde el archivo antes de cerrar."),
    ("fr", "Are you sure you want to quit?", "Êtes-vous sûr de vouloir quitter ?"),
    ("de", "The connection was lost.", "Die Verbindung wurde getrennt."),
    ("es", "Press OK to continue.", "Pulse Aceptar para continuar."),
    ("fr", "Copy 1,000 files (3.5 GB)", "Copier 1 000 fichiers (3,5 Go)"),
    ("es", "Set %APPDATA% to the folder.", "Establecer %APDATA% a la carpeta."),
    ("fr", "The color is #ff0000 by default.", "La couleur est #ff000 par défaut."),
    ("es", "Do you want to delete this note\u00a0?", "¿Desea eliminar esta nota\u00a0\u00a0▸"),
    ("es", "The file is 10\u00a0MB.", "El archivo es 10 MB."),
    ("es", "%llu / %llu blocks (%d%%)", "%llu / %s Block %s) (%s)"),
    ("es", "<em>font size</em>", "<em>el tamaño de la</em> fuente"),
    ("es", "Read https://docs.example.com/setup/ first.", "Lea primero https://docs.example.com/setup/."),
]


def per_segment(work, rounds: int, pairs=PAIRS) -> float:
    """Microseconds per pair: the median over rounds of one round's mean."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for language, source, output in pairs:
            work(source, output, language)
        times.append((time.perf_counter() - start) / len(pairs) * 1e6)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    per_segment(verify, 5)  # warm: the checkers are made on first use
    whole = per_segment(verify, args.rounds)
    toolkit = per_segment(toolkit_checks.failures, args.rounds)
    print(f"CPU: {platform.processor() or platform.machine()}; {len(PAIRS)} pairs x {args.rounds} rounds")
    plain = per_segment(verify, args.rounds, PAIRS[:5])
    print(f"verifier, all checks: {whole:.0f} us a segment ({plain:.0f} us on the 5 plain sentences)")
    print(f"  of which translate-toolkit's {len(toolkit_checks.CHECKS)} checks: {toolkit:.0f} us")


if __name__ == "__main__":
    main()
