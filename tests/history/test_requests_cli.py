"""`crossdeck requests` end to end against the seeded demo world (through a world file)."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from crossdeck.base.exitcodes import ExitCode
from crossdeck.cli import main
from crossdeck.history import CSV_COLUMNS, TABLE_COLUMNS

from .conftest import SeededWorld
from .seeding import OTHER_USERS, expected

pytestmark = pytest.mark.usefixtures("cli_env")


def run(world_file: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--world", str(world_file), "requests", *args])


def json_ids(result: Result) -> list[str]:
    return [json.loads(line)["id"] for line in result.stdout.splitlines()]


def next_cursor(result: Result) -> str | None:
    found = re.search(r"--continuation (\S+)", result.stderr)
    return found.group(1) if found else None


def test_all_as_json_lines_is_the_whole_listing(seeded: SeededWorld) -> None:
    result = run(seeded.world_file, "--all", "--json", "--limit", "50")
    assert result.exit_code == 0, result.output
    ids = json_ids(result)
    assert ids == expected(seeded.seeds)
    assert "more requests" not in result.stderr


def test_all_equals_the_union_of_its_pages(seeded: SeededWorld) -> None:
    filters = ["--limit", "37", "--sort-direction", "asc", "--status", "success"]
    everything = run(seeded.world_file, "--all", "--json", *filters)
    assert everything.exit_code == 0, everything.output
    union: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        extra = ["--continuation", cursor] if cursor else []
        page = run(seeded.world_file, "--json", *filters, *extra)
        assert page.exit_code == 0, page.output
        union += json_ids(page)
        pages += 1
        cursor = next_cursor(page)
        if cursor is None:
            break
    want = expected(seeded.seeds, where=lambda s: s.status == "success", direction="asc")
    assert union == json_ids(everything) == want
    assert len(set(union)) == len(union)  # no duplicates, and equality above: no gaps
    assert pages == -(-len(want) // 37)


def test_json_lines_are_the_records_wire_form(seeded: SeededWorld) -> None:
    result = CliRunner().invoke(
        main, ["--world", str(seeded.world_file), "--json", "requests", "--limit", "3"]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    first = json.loads(lines[0])
    seed = next(s for s in seeded.seeds if s.id == first["id"])
    assert first["status"] == seed.status and first["user"].lower() == seed.user
    # the world offers /requests/v3 to this key: the v3 record (txHash, data.route)
    assert [tx["txHash"] for tx in first["data"]["inTxs"]] == seed.in_hashes
    assert first["createdAt"].endswith("Z") and "route" in first["data"]
    assert next_cursor(result) is not None


def test_pages_n_stops_and_says_how_to_continue(seeded: SeededWorld) -> None:
    result = run(seeded.world_file, "--pages", "2", "--limit", "7", "--json")
    assert result.exit_code == 0, result.output
    assert json_ids(result) == expected(seeded.seeds)[:14]
    cursor = next_cursor(result)
    assert cursor is not None and "--all" in result.stderr
    more = run(seeded.world_file, "--limit", "7", "--json", "--continuation", cursor)
    assert json_ids(more) == expected(seeded.seeds)[14:21]


def test_csv_has_a_header_and_stable_columns(seeded: SeededWorld) -> None:
    result = run(seeded.world_file, "--csv", "--all", "--limit", "50", "--user", OTHER_USERS[1])
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert tuple(rows[0]) == CSV_COLUMNS
    want = expected(seeded.seeds, where=lambda s: OTHER_USERS[1] in (s.user, s.recipient))
    assert [row[0] for row in rows[1:]] == want
    by_id = {s.id: s for s in seeded.seeds}
    column = {name: at for at, name in enumerate(CSV_COLUMNS)}
    doubles = [row for row in rows[1:] if ";" in row[column["inTxHashes"]]]
    assert doubles, "the seeding gives some requests two origin transactions"
    for row in rows[1:]:
        seed = by_id[row[0]]
        assert row[column["inTxHashes"]] == ";".join(seed.in_hashes)
        assert row[column["outTxHashes"]] == ";".join(seed.out_hashes)
        assert row[column["originChainId"]] == str(seed.origin)
        assert row[column["destinationChainId"]] == str(seed.destination)
        assert row[column["amountIn"]] == str(seed.amount)


def test_csv_with_nothing_to_list_is_a_header_alone(seeded: SeededWorld) -> None:
    result = run(seeded.world_file, "--csv", "--referrer", "nobody-uses-this")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [",".join(CSV_COLUMNS)]
    assert "no requests match" in result.stderr


def test_table_streams_one_line_per_request(seeded: SeededWorld) -> None:
    result = run(seeded.world_file, "--status", "refund", "--limit", "12")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == list(TABLE_COLUMNS[:2])
    assert len(lines) == 13
    want = expected(seeded.seeds, where=lambda s: s.status == "refund")[:12]
    by_id = {s.id: s for s in seeded.seeds}
    for line, request_id in zip(lines[1:], want, strict=True):
        seed = by_id[request_id]
        assert line.startswith(request_id[:8] + "…" + request_id[-6:])
        assert " refund " in line and f"{seed.origin}->{seed.destination}" in line
        assert "USDC" in line and seed.in_hashes[0][:8] in line


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (["--chain", "1337"], lambda s: 1337 in (s.origin, s.destination)),
        (
            ["--origin-chain", "999", "--status", "pending"],
            lambda s: s.origin == 999 and s.status == "pending",
        ),
        (
            ["--start", "2024-05-01T01:00:00Z", "--end", "1714536000"],
            lambda s: 1_714_525_200_000 <= s.created_ms <= 1_714_536_000_999,
        ),
        (
            ["--start-block", "1500", "--end-block", "1600"],
            lambda s: s.origin_block is not None and 1500 <= s.origin_block <= 1600,
        ),
        (
            ["--referrer", "app-b", "--destination-chain", "8453"],
            lambda s: s.referrer == "app-b" and s.destination == 8453,
        ),
    ],
)
def test_options_reach_the_service(seeded: SeededWorld, args: list[str], where: object) -> None:
    result = run(seeded.world_file, "--all", "--json", "--limit", "50", *args)
    assert result.exit_code == 0, result.output
    want = expected(seeded.seeds, where=where)  # type: ignore[arg-type]
    assert want and json_ids(result) == want


def test_sort_by_update_time_both_ways(seeded: SeededWorld) -> None:
    for direction in ("asc", "desc"):
        result = run(
            seeded.world_file,
            "--all",
            "--json",
            "--limit",
            "50",
            "--sort-by",
            "updatedAt",
            "--sort-direction",
            direction,
            "--status",
            "failure",
        )
        assert result.exit_code == 0, result.output
        want = expected(
            seeded.seeds,
            where=lambda s: s.status == "failure",
            sort_by="updatedAt",
            direction=direction,
        )
        assert json_ids(result) == want


def test_own_api_key_filters_like_the_key_itself(seeded: SeededWorld) -> None:
    own = run(seeded.world_file, "--own-api-key", "--all", "--json", "--limit", "50")
    given = run(
        seeded.world_file,
        "--api-key-filter",
        seeded.world.api_key,
        "--all",
        "--json",
        "--limit",
        "50",
    )
    assert own.exit_code == given.exit_code == 0, own.output
    assert (
        json_ids(own)
        == json_ids(given)
        == expected(seeded.seeds, where=lambda s: s.key_name == "demo")
    )
    assert seeded.world.api_key not in own.output and seeded.world.api_key not in own.stderr


def test_id_with_child_requests(seeded: SeededWorld) -> None:
    parent = next(s for s in seeded.seeds if any(c.parent_id == s.id for c in seeded.seeds))
    alone = run(seeded.world_file, "--id", parent.id, "--json")
    family = run(seeded.world_file, "--id", parent.id, "--include-child-requests", "--json")
    assert json_ids(alone) == [parent.id]
    assert json_ids(family) == expected(
        seeded.seeds, where=lambda s: parent.id in (s.id, s.parent_id)
    )
    assert len(json_ids(family)) == 2


# -- bad input: refused before any request ------------------------------------------------------


@pytest.fixture
def unreachable_world(tmp_path: Path, seeded: SeededWorld) -> Path:
    """A world file whose service port is closed: a request would fail with NETWORK (5), so an
    INVALID_INPUT (3) exit proves nothing was sent."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    info = dict(seeded.world.info, service_url=f"http://127.0.0.1:{port}")
    path = tmp_path / "unreachable.json"
    path.write_text(json.dumps(info))
    return path


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--limit", "0"], "--limit"),
        (["--limit", "51"], "--limit"),
        (["--limit", "ten"], "--limit"),
        (["--status", "waiting"], "--status"),
        (["--status", "done"], "--status"),
        (["--user", "0x1234"], "--user"),
        (["--user", "vitalik.eth"], "--user"),
        (["--deposit-address", "0x" + "g" * 40], "--deposit-address"),
        (["--hash", "0x" + "ab" * 31], "--hash"),
        (["--id", "42"], "--id"),
        (["--order-id", "0x" + "ab" * 33], "--order-id"),
        (["--origin-chain", "base"], "--origin-chain"),
        (["--chain", "0"], "--chain"),
        (["--start", "last tuesday"], "--start"),
        (["--start", "1714521600000"], "--start"),
        (["--start", "2024-05-02", "--end", "2024-05-01"], "--end"),
        (["--start-block", "10", "--end-block", "9"], "--end-block"),
        (["--chain", "8453", "--origin-chain", "999"], "--chain"),
        (["--include-child-requests"], "--include-child-requests"),
        (["--private-chains", "not-a-uuid"], "--private-chains"),
        (["--sort-by", "amount"], "--sort-by"),
        (["--sort-direction", "up"], "--sort-direction"),
        (["--all", "--pages", "2"], "--pages"),
        (["--pages", "0"], "--pages"),
        (["--json", "--csv"], "--csv"),
        (["--api-key-filter", "k", "--own-api-key"], "--own-api-key"),
    ],
)
def test_bad_input_is_refused_before_any_request(
    unreachable_world: Path, args: list[str], named: str
) -> None:
    result = run(unreachable_world, *args)
    assert result.exit_code == ExitCode.INVALID_INPUT, result.output
    assert named in result.stderr
    assert result.stdout == ""


def test_the_unreachable_world_really_is_unreachable(unreachable_world: Path) -> None:
    result = run(unreachable_world, "--limit", "5")
    assert result.exit_code == ExitCode.NETWORK


def test_a_closed_pipe_ends_the_listing_quietly(seeded: SeededWorld) -> None:
    # `crossdeck requests --all | head -1`: the first row arrives while later pages are still
    # to come, and closing the pipe is not an error
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROSSDECK_")}
    env["CROSSDECK_CONFIG"] = os.environ["CROSSDECK_CONFIG"]
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("crossdeck")),
            "--world",
            str(seeded.world_file),
            "requests",
            "--all",
            "--json",
            "--limit",
            "5",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    code = proc.wait(timeout=60)
    assert code == 0, stderr
    assert json.loads(first)["id"] == expected(seeded.seeds)[0]
    assert "Traceback" not in stderr
