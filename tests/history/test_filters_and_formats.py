"""The history layer on its own: time parsing, filter checking, quick filters, row summaries,
output formats, explorer templates, and the layer's import rule."""

from __future__ import annotations

import ast
import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crossdeck.base.exitcodes import ExitCode
from crossdeck.history import (
    CSV_COLUMNS,
    ExplorerLinks,
    FilterError,
    QuickFilter,
    TimeParseError,
    apply_quick_filters,
    build_query,
    counts_as_failed,
    csv_header,
    csv_line,
    describe_filters,
    format_time,
    json_line,
    parse_time,
    summarize,
    table_header,
    table_line,
)
from crossdeck.models import ChainsResponse, RequestRecord

ADDRESS = "0x" + "ab" * 20
HASH = "0x" + "cd" * 32

# -- time ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "end", "seconds"),
    [
        ("1714521600", False, 1714521600),
        ("  1714521600 ", True, 1714521600),
        ("2024-05-01T00:00:00Z", False, 1714521600),
        ("2024-05-01T00:00:00z", False, 1714521600),
        ("2024-05-01T02:00:00+02:00", False, 1714521600),
        ("2024-05-01T00:00:00", False, 1714521600),  # no zone: UTC
        ("2024-05-01 00:00:00", False, 1714521600),
        ("2024-05-01", False, 1714521600),
        ("2024-05-01", True, 1714607999),  # a bare end date: its last second
        ("2024-05-01T00:00:00.250Z", False, 1714521601),  # a start rounds up
        ("2024-05-01T00:00:00.250Z", True, 1714521600),  # an end rounds down
        (1714521600, False, 1714521600),
    ],
)
def test_times_in_iso_8601_or_unix_seconds(text: str | int, end: bool, seconds: int) -> None:
    assert parse_time(text, end=end) == seconds


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "required"),
        ("yesterday", "neither ISO 8601 nor Unix seconds"),
        ("2024-13-01", "calendar date"),
        ("1714521600000", "milliseconds"),
        ("1969-12-31T23:59:59Z", "before 1970"),
        ("-5", "neither"),
        ("1714521600.5", "neither"),
    ],
)
def test_bad_times_say_what_to_do(text: str, says: str) -> None:
    with pytest.raises(TimeParseError, match=says):
        parse_time(text)


@given(st.integers(min_value=0, max_value=10**10 - 1))
def test_formatted_times_read_back(seconds: int) -> None:
    assert parse_time(format_time(seconds)) == seconds
    assert parse_time(str(seconds), end=True) == seconds


# -- filters ---------------------------------------------------------------------------------


def test_every_option_lands_on_its_wire_parameter() -> None:
    query = build_query(
        user=ADDRESS,
        hash=HASH,
        origin_chain="8453",
        destination_chain=999,
        id=HASH,
        order_id=HASH,
        status="Refund",
        start="2024-05-01",
        end="2024-05-02",
        start_block="10",
        end_block="20",
        referrer=" app ",
        deposit_address=ADDRESS,
        api_key_filter="key-123",
        private_chains="123e4567-e89b-12d3-a456-426614174000",
        include_child_requests=True,
        include_order_data=True,
        include_authenticated_data=True,
        sort_by="updatedAt",
        sort_direction="ASC",
        limit="50",
        continuation="abc",
    )
    assert query.to_params() == {
        "limit": "50",
        "continuation": "abc",
        "user": ADDRESS,
        "hash": HASH,
        "originChainId": "8453",
        "destinationChainId": "999",
        "privateChainsToInclude": "123e4567-e89b-12d3-a456-426614174000",
        "id": HASH,
        "orderId": HASH,
        "includeOrderData": "true",
        "startTimestamp": "1714521600",
        "endTimestamp": "1714694399",
        "startBlock": "10",
        "endBlock": "20",
        "referrer": "app",
        "depositAddress": ADDRESS,
        "includeChildRequests": "true",
        "includeAuthenticatedData": "true",
        "status": "refund",
        "apiKey": "key-123",
        "sortBy": "updatedAt",
        "sortDirection": "asc",
    }
    assert build_query().to_params() == {}
    assert build_query(user="", status="  ", start="", include_order_data=False).to_params() == {}
    assert build_query(chain=1337).to_params() == {"chainId": "1337"}


@pytest.mark.parametrize(
    ("options", "field", "option"),
    [
        ({"limit": 0}, "limit", "--limit"),
        ({"limit": "51"}, "limit", "--limit"),
        ({"limit": True}, "limit", "--limit"),
        ({"user": "0x" + "ab" * 19}, "user", "--user"),
        ({"hash": ADDRESS}, "hash", "--hash"),
        ({"id": "0x" + "zz" * 32}, "id", "--id"),
        ({"status": "submitted"}, "status", "--status"),
        ({"origin_chain": "-1"}, "originChainId", "--origin-chain"),
        ({"destination_chain": 0}, "destinationChainId", "--destination-chain"),
        ({"end": "tomorrow"}, "endTimestamp", "--end"),
        ({"start_block": "1e3"}, "startBlock", "--start-block"),
        ({"sort_by": "createdat"}, "sortBy", "--sort-by"),
        (
            {"private_chains": "123e4567-e89b-12d3-a456-426614174000,x"},
            "privateChainsToInclude",
            "--private-chains",
        ),
        ({"api_key_filter": "two words"}, "apiKey", "--api-key-filter"),
    ],
)
def test_bad_filters_name_the_option_and_the_field(
    options: dict[str, object], field: str, option: str
) -> None:
    with pytest.raises(FilterError) as info:
        build_query(**options)  # type: ignore[arg-type]
    assert info.value.field == field and info.value.option == option
    assert str(info.value).startswith(option) and info.value.exit_code == ExitCode.INVALID_INPUT


def test_a_bad_api_key_filter_is_never_echoed() -> None:
    with pytest.raises(FilterError) as info:
        build_query(api_key_filter="secret part")
    assert "secret" not in str(info.value)
    query = build_query(api_key_filter="s3cr3t-key", status="failure")
    assert "s3cr3t" not in describe_filters(query) and "apiKey=<set>" in describe_filters(query)


def test_quick_filters_are_presets_over_the_query() -> None:
    base = build_query(status="success", chain=8453, limit=10, continuation="somewhere")
    mine_failed = apply_quick_filters(base, {QuickFilter.MINE, QuickFilter.FAILED}, wallet=ADDRESS)
    # 'failed' asks for every status (a refunded failure is listed as refund): the rows are
    # kept by counts_as_failed
    assert mine_failed.to_params() == {"limit": "10", "user": ADDRESS, "chainId": "8453"}
    assert counts_as_failed("failure", "N/A") and counts_as_failed("refund", "SLIPPAGE")
    assert not counts_as_failed("refund", "N/A") and not counts_as_failed("success", "X")
    assert apply_quick_filters(base, [], wallet=None).status == "success"
    assert apply_quick_filters(base, ["refunded"]).status == "refund"
    with pytest.raises(FilterError, match="cannot both"):
        apply_quick_filters(base, ["failed", "refunded"])
    with pytest.raises(FilterError, match="needs a wallet"):
        apply_quick_filters(base, [QuickFilter.MINE], wallet=None)
    assert all(preset.label for preset in QuickFilter)


# -- summaries and formats -------------------------------------------------------------------


def _record(**over: object) -> RequestRecord:
    wire: dict[str, object] = {
        "id": HASH,
        "status": "success",
        "user": ADDRESS,
        "recipient": ADDRESS,
        "data": {
            "currency": "usdc",
            "fees": {"gas": "1", "fixed": "2", "price": "3"},
            "inTxs": [
                {"hash": "0x" + "11" * 32, "chainId": 8453, "timestamp": 1},
                {"hash": "0x" + "12" * 32, "chainId": 8453, "timestamp": 2},
            ],
            "outTxs": [{"hash": "0x" + "21" * 32, "chainId": 1337, "timestamp": 3}],
            "failReason": "N/A",
        },
        "createdAt": "2024-05-01T12:34:56.789Z",
        "updatedAt": "2024-05-01T12:35:00.000Z",
    }
    wire.update(over)
    return RequestRecord.from_wire(wire)


def test_without_metadata_a_row_falls_back_to_the_transactions() -> None:
    row = summarize(_record())
    assert row.route == "8453->1337"
    assert row.amount == "USDC"  # the label alone: no amount is claimed
    assert row.created_text == "2024-05-01 12:34:56"
    assert row.in_text.endswith(" +1") and row.out_text == "0x212121…212121"
    bare = summarize(RequestRecord.from_wire({"id": "0x1"}))
    assert bare.route == "?->?" and bare.amount == "-" and bare.in_text == "-"
    assert bare.status == "-" and bare.created_text == "-"


def test_amounts_come_from_the_metadata_exactly() -> None:
    data = dict(_record().to_wire()["data"])
    data["metadata"] = {
        "currencyIn": {
            "currency": {"chainId": 999, "symbol": "USDC", "decimals": 6},
            "amount": "123456789012345678901",
        },
        "currencyOut": {"currency": {"chainId": 1337, "symbol": "USDC", "decimals": 8}},
    }
    row = summarize(_record(data=data))
    # from the integer, no float anywhere, rounded as a wallet shows it (exact: the detail, CSV)
    assert row.amount == "123,456,789,012,346 USDC"
    assert row.route == "999->1337"


def test_table_lines_line_up_with_the_header() -> None:
    header = table_header()
    line = table_line(_record())
    assert header.index("STATUS") == line.index("success")
    assert header.index("CHAINS") == line.index("8453->1337")


def test_csv_rows_are_stable_and_safe_in_spreadsheets() -> None:
    record = _record(data={**_record().to_wire()["data"], "currency": "=HYPERLINK(1)"})
    rows = list(csv.reader(io.StringIO(csv_header() + "\n" + csv_line(record))))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows[1]) == len(CSV_COLUMNS)
    cell = dict(zip(CSV_COLUMNS, rows[1], strict=True))
    assert cell["currency"] == "'=HYPERLINK(1)"
    assert cell["inTxHashes"] == "0x" + "11" * 32 + ";0x" + "12" * 32
    assert cell["originChainId"] == "8453" and cell["destinationChainId"] == "1337"
    assert cell["createdAt"] == "2024-05-01T12:34:56.789Z"
    assert (cell["feesGas"], cell["feesFixed"], cell["feesPrice"]) == ("1", "2", "3")
    assert cell["failReason"] == "N/A" and cell["depositAddress"] == ""


def test_json_line_is_the_wire_form() -> None:
    record = _record(partnerId="3f0c6a0e-0000-4000-8000-000000000000")
    line = json_line(record)
    assert "\n" not in line
    assert json.loads(line) == record.to_wire()
    assert json.loads(line)["partnerId"] == "3f0c6a0e-0000-4000-8000-000000000000"


# -- explorer templates ------------------------------------------------------------------------


def test_explorer_templates_and_query_params() -> None:
    chains = ChainsResponse.from_wire(
        {
            "chains": [
                {
                    "id": 1,
                    "explorerUrl": "https://scan.example/",
                    "explorerPaths": {
                        "transaction": "/logs/{TX_HASH}",
                        "address": "/acct/{ADDRESS}",
                    },
                    "explorerQueryParams": {"network": "main"},
                },
                {"id": 2, "explorerUrl": "https://two.example"},
                {
                    "id": 3,
                    "explorerUrl": "https://three.example",
                    "explorerPaths": {"transaction": "/t/"},
                },
                {"id": 4, "explorerPaths": {"transaction": "https://abs.example/x/{txHash}"}},
                {"id": 5},
            ]
        }
    )
    links = ExplorerLinks(chains)
    assert links.tx_url(1, "0xab") == "https://scan.example/logs/0xab?network=main"
    assert links.address_url(1, ADDRESS) == f"https://scan.example/acct/{ADDRESS}?network=main"
    assert links.tx_url(2, "0xab") == "https://two.example/tx/0xab"
    assert links.address_url(2, ADDRESS) == f"https://two.example/address/{ADDRESS}"
    assert links.tx_url(3, "0xab") == "https://three.example/t/0xab"
    assert links.tx_url(4, "0xab") == "https://abs.example/x/0xab"
    assert links.tx_url(5, "0xab") is None and links.tx_url(6, "0xab") is None
    assert links.tx_url(2, "../admin?x=1") == "https://two.example/tx/..%2Fadmin%3Fx%3D1"
    assert links.chain_name(2) == "2" and links.chain_name(None) == "?"


# -- the layer rule ----------------------------------------------------------------------------

HISTORY = Path(__file__).resolve().parents[2] / "src" / "crossdeck" / "history"
ALLOWED = (
    "crossdeck.models",
    "crossdeck.api",
    "crossdeck.base.errors",
    "crossdeck.history",
    "crossdeck.base.secret",  # the one secret type (an API key filter)
    "crossdeck.base.lazy_names",  # the package's names loaded on first use
)


@pytest.mark.parametrize("path", sorted(HISTORY.glob("*.py")), ids=lambda p: p.name)
def test_history_imports_models_and_api_only(path: Path) -> None:
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            if name.startswith("crossdeck"):
                assert name.startswith(ALLOWED), f"{path.name} imports {name}"
            assert not name.startswith("textual"), f"{path.name} imports {name}"


def test_history_never_pulls_in_textual() -> None:
    code = (
        "import sys, crossdeck.history\n"
        "print(any(m.split('.')[0] == 'textual' for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
