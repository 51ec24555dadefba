"""The first frame of the Quote form's four pickers: crossdeck's Picker against one-line Statics
(the anchor: what four lines of text cost textual to draw), with textual's Select beside them
(what the pickers were). Prints the medians, the ratios and the run count; nothing here is a
test (tests never assert times).

    .venv/bin/python bench/picker_frame.py [--runs 9]

Each run is a fresh interpreter: an app with two rows of two (From and To) at 120x36, headless,
timed from the app's construction (textual and the widget's module already imported, so imports
are left out) to the first frame (`call_after_refresh` from the app's mount), in wall clock and
CPU time. The three kinds alternate run by run, so load from other processes falls on all
alike. The goal (issue 28 point 9): the pickers cost about what text costs, <= 1.2x the anchor.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

GOAL = 1.2
KINDS = ("static", "picker", "select")
OPTIONS = [("Base (8453)", 8453), ("Venue (1337)", 1337), ("Arbitrum One (42161)", 42161)]

CHILD = r"""
import json, sys, time
kind, options = sys.argv[1], [tuple(o) for o in json.loads(sys.argv[2])]
from textual.app import App
from textual.containers import Horizontal
from textual.widgets import Static
if kind == "select":
    from textual.widgets import Select
    def make(i):
        return Select(options, id=f"p{i}", prompt="chain", compact=True, value=options[0][1])
elif kind == "picker":
    from crossdeck.tui.widgets.picker import Picker
    def make(i):
        picker = Picker(options, id=f"p{i}", prompt="chain")
        picker.value = options[0][1]
        return picker
else:
    def make(i):
        return Static(options[0][0], id=f"p{i}")

class Pickers(App):
    def compose(self):
        yield Horizontal(make(0), make(1))
        yield Horizontal(make(2), make(3))

    def on_mount(self):
        self.call_after_refresh(self.first_frame)

    def first_frame(self):
        self.marks = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
        self.exit()

wall, cpu = time.perf_counter(), time.process_time()
app = Pickers()
app.run(headless=True, size=(120, 36))
print(json.dumps(app.marks))
"""


def _run(kind: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, kind, json.dumps(OPTIONS)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    marks: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return marks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    for kind in KINDS:
        _run(kind)  # warm caches (files, bytecode)
    runs: dict[str, list[dict[str, float]]] = {kind: [] for kind in KINDS}
    for _ in range(args.runs):
        for kind in KINDS:
            runs[kind].append(_run(kind))
    print(f"runs: {args.runs} each, interleaved; 120x36 headless; four pickers in two rows")
    ratio = 0.0
    for clock in ("wall", "cpu"):
        med = {kind: statistics.median(r[clock] for r in runs[kind]) for kind in KINDS}
        anchor = med["static"]
        print(
            f"  {clock:4}  anchor (Statics) {anchor * 1000:6.1f} ms  "
            f"Picker {med['picker'] * 1000:6.1f} ms ({med['picker'] / anchor:.2f}x, goal <= "
            f"{GOAL}x)  textual Select {med['select'] * 1000:6.1f} ms "
            f"({med['select'] / anchor:.2f}x)"
        )
        if clock == "cpu":
            ratio = med["picker"] / anchor
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
