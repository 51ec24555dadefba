"""`crossdeck --help` and `crossdeck --version`, whole process, against a bare click app with the
same number of top-level commands. Prints both, the ratio and the run count; nothing here is a
test (tests never assert times).

    .venv/bin/python bench/cli_help_bench.py [--runs 15]

Each run is a fresh process started the way a user starts it: crossdeck through its console
script in the venv, the anchor through the same interpreter. The anchor is a click group with
one command per crossdeck top-level command, each with a one-line help, and a version option;
it is written to a temporary file so its bytecode is cached like crossdeck's. Anchor and
crossdeck runs alternate, so load from other processes on the machine falls on both alike. The
goal (issue 15) is a ratio of at most 1.5.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CROSSDECK = str(Path(sys.executable).with_name("crossdeck"))
GOAL = 1.5

ANCHOR = '''
import click

@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--profile", help="Config profile.")
@click.option("--json", "json_", is_flag=True, help="Machine-readable output.")
@click.version_option("0.1.0", prog_name="anchor")
def main(profile, json_):
    """A bare click app."""

def _add(name):
    @main.command(name, help=f"The {name} command, one line of help.")
    def command():
        pass

for _name in %(names)r:
    _add(_name)

if __name__ == "__main__":
    main()
'''


def _top_level_names() -> list[str]:
    from crossdeck.cli import main

    return sorted(main.list_commands(None))  # type: ignore[arg-type]


def _timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    names = _top_level_names()
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        anchor = Path(tmp) / "anchor_cli.py"
        anchor.write_text(ANCHOR % {"names": names})
        # run the anchor as a module so Python caches its bytecode, as crossdeck's is
        anchor_argv = [
            sys.executable,
            "-c",
            f"import sys; sys.path.insert(0, {tmp!r}); import anchor_cli; anchor_cli.main()",
        ]
        print(f"runs: {args.runs} each, interleaved; anchor: bare click app, {len(names)} commands")
        for flag in ("--help", "--version"):
            _timed([*anchor_argv, flag])  # warm caches (files, bytecode)
            _timed([CROSSDECK, flag])
            pairs = [
                (_timed([*anchor_argv, flag]), _timed([CROSSDECK, flag])) for _ in range(args.runs)
            ]
            base = statistics.median(a for a, _ in pairs)
            ours = statistics.median(c for _, c in pairs)
            ratio = ours / base
            worst = max(worst, ratio)
            print(
                f"crossdeck {flag:9}  anchor {base:.3f} s  crossdeck {ours:.3f} s  "
                f"ratio {ratio:.2f}x (goal <= {GOAL}x)"
            )
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
