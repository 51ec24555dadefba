"""Start-up of the app, whole process: process start -> first frame of the Quote screen, peak
memory, and the chain pickers filled from /chains, against a one-widget Textual app started the
same way. Prints the anchor, crossdeck's figure and the ratio; nothing here is a test (tests
never assert times).

    .venv/bin/python bench/tui_startup.py [--runs 7] [--no-bytecode]

Each run is a fresh interpreter running the CLI's entry point as `crossdeck --world FILE` does
(imports included, as a user would see them), headless at 120x36, on a demo world that this
script starts once. Anchor and crossdeck runs alternate, so load from other processes on the
machine falls on both alike; figures are medians. The first frame is marked the same way in
both: `call_after_refresh` from the first screen's mount. Peak memory is the child's peak RSS
(VmHWM). By default the bytecode cache is what the install wrote (the README's install compiles
it); `--no-bytecode` runs both without one, as on a machine where nothing was compiled. The
child also reports which heavy modules were already imported at the first frame: none should
be, they are deferred to first use. Goals (issue 15): first frame and peak memory <= 1.5x the
anchor, pickers filled <= 0.2 s after the first frame.

Also measured, as a floor: the Quote screen's widgets (their textual classes, ids, classes and
nesting, read from crossdeck's warm-up run) with crossdeck's stylesheet in a bare textual app
with no crossdeck code: what textual itself takes to draw this screen. crossdeck cannot go below
it without drawing fewer or cheaper widgets.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = (
    "web3",
    "eth_tester",
    "eth_account",
    "aiohttp",
    "keyring",
    "eth_abi",
    "coincurve",
    "httpx",
    "crossdeck.tui.screens.execute",
    "crossdeck.tui.screens.confirm",
)
GOAL = 1.5
STYLESHEET = Path(__file__).resolve().parent.parent / "src" / "crossdeck" / "tui" / "app.tcss"
PICKERS_GOAL_S = 0.2

REPORT = r"""
def report(marks):
    # VmHWM, not ru_maxrss: Linux keeps ru_maxrss across exec, so it would show the parent's
    import json
    with open("/proc/self/status") as status:
        hwm = next(line for line in status if line.startswith("VmHWM:"))
    marks["peak_rss_mb"] = int(hwm.split()[1]) / 1024
    print(json.dumps(marks), flush=True)
"""

ANCHOR = (
    REPORT
    + r"""
import sys, time
start_mark = float(sys.argv[1])
from textual.app import App
from textual.widgets import Static

marks = {}

class OneWidget(App):
    def compose(self):
        yield Static("one widget")

    def on_mount(self):
        self.call_after_refresh(self.first_frame)

    def first_frame(self):
        marks["first_frame_s"] = time.time() - start_mark
        marks["widgets"] = len(list(self.screen.walk_children(with_self=True)))
        self.exit()

OneWidget().run(headless=True, size=(120, 36))
report(marks)
"""
)

# crossdeck as a user starts it, `crossdeck --world FILE` (the CLI's entry point, which opens the
# app), with two hooks: the app runs headless at 120x36, and its first frame is marked.
CROSSDECK = (
    REPORT
    + r"""
import sys, time
start_mark = float(sys.argv[1])
from crossdeck.tui.app import CrossdeckApp

marks = {}
app = None
_run, _first_frame = CrossdeckApp.run, CrossdeckApp.first_frame

def run_headless(self, **options):
    global app
    app = self
    return _run(self, headless=True, size=(120, 36))

def mark_first_frame(self):
    if "first_frame_s" not in marks:
        first_frame()
    _first_frame(self)

CrossdeckApp.run, CrossdeckApp.first_frame = run_headless, mark_first_frame

def widget_tree(node):
    # the node's nearest textual class, its id and classes, and what crossdeck composed in it
    # (a textual widget's own parts, e.g. a Select's overlay, it makes itself when rebuilt)
    base = next(c for c in type(node).__mro__ if c.__module__.startswith("textual."))
    composed = base.__module__ in ("textual.containers", "textual.screen", "textual.widget")
    children = [c for c in node.children if not (c.id or "").startswith("textual-")]
    return {
        "cls": [base.__module__, base.__name__],
        "id": node.id,
        "classes": sorted(node.classes),
        "children": [widget_tree(child) for child in children] if composed else [],
    }

def first_frame():
    marks["first_frame_s"] = time.time() - start_mark
    marks["heavy_at_first_frame"] = sorted(m for m in %(heavy)r if m in sys.modules)
    marks["widgets"] = len(list(app.screen.walk_children(with_self=True)))
    if tree_file:  # the warm-up run: what the floor app rebuilds
        import json
        with open(tree_file, "w") as out:
            json.dump(widget_tree(app.screen), out)
    app.set_interval(0.005, wait_for_chains)

def wait_for_chains():
    screen = app.quote_screen
    if "chains_s" not in marks and screen is not None and screen.chains is not None:
        marks["chains_s"] = time.time() - start_mark
        app.exit()

from crossdeck.cli import main
tree_file = sys.argv[3] if len(sys.argv) > 3 else None
sys.argv = ["crossdeck", "--world", sys.argv[2]]
try:
    main()
except SystemExit as done:
    if done.code:
        raise
report(marks)
"""
)


# The floor: the Quote screen's widgets (the same textual classes, ids, classes and nesting, read
# from crossdeck's first frame) with crossdeck's stylesheet, in a bare textual app with no
# crossdeck code. What crossdeck cannot go below without drawing fewer or cheaper widgets.
FLOOR = (
    REPORT
    + r"""
import importlib, json, sys, time
start_mark = float(sys.argv[1])
from textual.app import App
from textual.screen import Screen

marks = {}
with open(sys.argv[2]) as tree_file:
    tree = json.load(tree_file)

def build(node):
    module, name = node["cls"]
    cls = getattr(importlib.import_module(module), name)
    children = [build(child) for child in node["children"]]
    if name == "Select":
        widget = cls([], id=node["id"], compact=True)
    else:
        widget = cls(*children, id=node["id"]) if children else cls(id=node["id"])
    widget.add_class(*node["classes"])
    return widget

class Floor(Screen):
    def compose(self):
        for child in tree["children"]:
            yield build(child)

    def on_mount(self):
        self.call_after_refresh(self.app.first_frame)

class FloorApp(App):
    CSS_PATH = sys.argv[3]

    def on_mount(self):
        self.push_screen(Floor())

    def first_frame(self):
        marks["first_frame_s"] = time.time() - start_mark
        marks["widgets"] = len(list(self.screen.walk_children(with_self=True)))
        self.exit()

FloorApp().run(headless=True, size=(120, 36))
report(marks)
"""
)


def _env(config: Path, no_bytecode: bool) -> dict[str, str]:
    env = {**os.environ, "CROSSDECK_CONFIG": str(config)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPYCACHEPREFIX", None)
    if no_bytecode:
        # an empty cache elsewhere, never written: every module is compiled on every start
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="no-pycache-")
    return env


def _child(code: str, args: list[str], env: dict[str, str]) -> dict:
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", code, str(started), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    if done.returncode != 0 or "first_frame_s" not in done.stdout:
        raise SystemExit(f"a run failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _line(what: str, anchor: float, ours: float, unit: str) -> float:
    ratio = ours / anchor
    print(
        f"  {what:12} anchor {anchor:7.3f} {unit}  crossdeck {ours:7.3f} {unit}  "
        f"ratio {ratio:.2f}x (goal <= {GOAL}x)"
    )
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-bytecode", action="store_true")
    args = parser.parse_args()

    from crossdeck.sim.world import World

    with tempfile.TemporaryDirectory() as tmp, World(speed=0) as world:
        world_file = Path(tmp) / "world.json"
        world_file.write_text(json.dumps(world.info))
        config = Path(tmp) / "config.toml"
        config.write_text(f'data_dir = "{Path(tmp) / "data"}"\n')
        env = _env(config, args.no_bytecode)
        ours_code = CROSSDECK % {"heavy": HEAVY}
        # warm the file cache (and, by default, the bytecode cache); the warm-up run of
        # crossdeck writes the Quote screen's widget tree for the floor
        tree = Path(tmp) / "quote-screen.json"
        floor_args = [str(tree), str(STYLESHEET)]
        _child(ANCHOR, [], env)
        _child(ours_code, [str(world_file), str(tree)], env)
        _child(FLOOR, floor_args, env)
        anchors, ours, floors = [], [], []
        for _ in range(args.runs):
            anchors.append(_child(ANCHOR, [], env))
            ours.append(_child(ours_code, [str(world_file)], env))
            floors.append(_child(FLOOR, floor_args, env))

    def med(runs: list[dict], key: str) -> float:
        return statistics.median(r[key] for r in runs)

    cache = "no bytecode cache" if args.no_bytecode else "bytecode cached"
    print(
        f"runs: {args.runs} each, interleaved; 120x36 headless; {cache}; "
        "anchor: a one-widget Textual app"
    )
    worst = max(
        _line("first frame", med(anchors, "first_frame_s"), med(ours, "first_frame_s"), "s"),
        _line("peak RSS", med(anchors, "peak_rss_mb"), med(ours, "peak_rss_mb"), "MB"),
    )
    floor_frame, floor_rss = med(floors, "first_frame_s"), med(floors, "peak_rss_mb")
    anchor_frame, anchor_rss = med(anchors, "first_frame_s"), med(anchors, "peak_rss_mb")
    print(
        f"  floor: the Quote screen's widgets ({med(floors, 'widgets'):.0f}; crossdeck's: "
        f"{med(ours, 'widgets'):.0f}) and stylesheet in a bare textual app: first frame "
        f"{floor_frame:.3f} s ({floor_frame / anchor_frame:.2f}x), peak RSS "
        f"{floor_rss:.1f} MB ({floor_rss / anchor_rss:.2f}x)"
    )
    pickers = statistics.median(r["chains_s"] - r["first_frame_s"] for r in ours)
    print(f"  pickers filled {pickers:.3f} s after the first frame (goal <= {PICKERS_GOAL_S} s)")
    heavy = sorted({m for r in ours for m in r["heavy_at_first_frame"]})
    print(f"  heavy modules at first frame: {', '.join(heavy) or 'none'}")
    met = worst <= GOAL and pickers <= PICKERS_GOAL_S and not heavy
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
