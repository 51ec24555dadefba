from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter

from crossdeck.base.errors import InputError
from crossdeck.models import IntStr, UnitsError, format_units, parse_units, to_decimal

INT_STR = TypeAdapter(IntStr)


@given(st.integers(min_value=0, max_value=2**256))
def test_intstr_round_trips_any_non_negative_int(value: int) -> None:
    text = INT_STR.dump_python(value, mode="json")
    assert text == str(value)
    assert INT_STR.validate_python(text) == value
    assert INT_STR.validate_json(f'"{value}"') == value


@given(st.integers(min_value=0, max_value=10**40), st.integers(min_value=0, max_value=30))
def test_format_then_parse_is_identity(value: int, decimals: int) -> None:
    text = format_units(value, decimals)
    assert parse_units(text, decimals) == value
    assert Decimal(text) == Decimal(f"{value}E-{decimals}")  # construction is exact
    assert "e" not in text.lower()


@given(
    st.integers(min_value=0, max_value=10**20),
    st.integers(min_value=0, max_value=18),
    st.integers(min_value=0, max_value=18),
)
def test_parse_then_format_is_canonical(whole: int, frac_digits: int, decimals: int) -> None:
    frac = str(whole)[:frac_digits].rjust(frac_digits, "0") if frac_digits else ""
    text = f"{whole}.{frac}" if frac else str(whole)
    if len(frac.rstrip("0")) > decimals:
        with pytest.raises(UnitsError):
            parse_units(text, decimals)
        return
    value = parse_units(text, decimals)
    assert Decimal(format_units(value, decimals)) == Decimal(text)


def test_examples() -> None:
    assert format_units(1_500_000, 6) == "1.5"
    assert format_units(1, 18) == "0.000000000000000001"
    assert format_units(0, 8) == "0"
    assert format_units(-2_500, 3) == "-2.5"
    assert format_units(42, 0) == "42"
    assert parse_units("1.5", 6) == 1_500_000
    assert parse_units(" 10 ", 8) == 1_000_000_000
    assert parse_units(".5", 2) == 50
    assert parse_units("5.", 2) == 500
    assert parse_units("1.2300", 2) == 123  # trailing zeros are not extra precision
    assert parse_units(Decimal("0.000001"), 6) == 1
    assert to_decimal(1_234_567, 6) == Decimal("1.234567")


@pytest.mark.parametrize("bad", ["", ".", "-1", "+1", "1e6", "1,5", "abc", "NaN", "1.2.3", "0x10"])
def test_parse_rejects_non_plain_decimals(bad: str) -> None:
    with pytest.raises(UnitsError, match="not a plain decimal"):
        parse_units(bad, 6)


def test_parse_rejects_too_many_decimals_with_a_hint() -> None:
    with pytest.raises(UnitsError) as info:
        parse_units("1.0000001", 6)
    assert "7 decimal places" in str(info.value)
    assert "at most 6 digits" in str(info.value)
    assert isinstance(info.value, InputError)


def test_type_errors() -> None:
    with pytest.raises(TypeError):
        format_units(1.5, 6)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        format_units(True, 6)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="decimals"):
        format_units(1, -1)
    with pytest.raises(UnitsError, match="finite"):
        parse_units(Decimal("Infinity"), 6)
