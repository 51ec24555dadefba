"""The one place where the command line's option values are parsed and checked.

Every number, duration and request id a user types goes through a type here, so each is held
to the same rules, and a value that breaks them is refused before anything is sent, with exit
3 (INVALID_INPUT) and a message naming the option:

- Digits are ASCII only. Python's `int()`, `float()`, `Decimal()` and `str.isdigit()` also take
  other scripts' digits (`int("١٢") == 12`), which no user means when they type an amount.
- Durations are finite: `float()` takes "nan", "inf" and "1e999", and a NaN deadline never
  passes.
- Addresses are of a chain family (`crossdeck.models.addresses`): EVM (0x and 40 hex digits,
  a right EIP-55 checksum when mixed case), Solana (base58 of 32 bytes, case kept), Bitcoin
  (bech32/bech32m or base58check, checksum held). A wrong checksum is a mistyped address, never
  sent to; which family an option takes is its chain's, checked once the chain is known.
- Text is valid UTF-8: an argument holding bytes that are not UTF-8 arrives as lone surrogates
  (Python's surrogateescape) that no request can carry; `check_argv` refuses them up front.
"""

from __future__ import annotations

import math
import re
from typing import TypeVar

import click

from crossdeck.base.errors import InputError
from crossdeck.base.exitcodes import ExitCode

_Parsed = TypeVar("_Parsed")

_WHOLE = re.compile(r"[0-9]+")  # [0-9], not \d or isdigit: those take any script's digits
_EVM_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
_DECIMAL = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


class InvalidValue(click.BadParameter):
    """An option's value is not one it can take: invalid input (3), not bad usage (2)."""

    exit_code = int(ExitCode.INVALID_INPUT)


def parse_whole_number(text: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """A whole number written in ASCII digits, within [minimum, maximum]; `InputError` else."""
    cleaned = text.strip()
    if not _WHOLE.fullmatch(cleaned):
        raise InputError(f"{shown(text)} is not a whole number (digits 0-9 only)")
    value = int(cleaned)
    if minimum is not None and value < minimum:
        raise InputError(f"{value} is below the least allowed, {minimum}")
    if maximum is not None and value > maximum:
        raise InputError(f"{value} is above the most allowed, {maximum}")
    return value


def parse_number(
    text: str, *, minimum: float = 0.0, maximum: float | None = None, allow_minimum: bool = True
) -> float:
    """A finite decimal number written in ASCII digits (no sign, no exponent), within
    [minimum, maximum] (above `minimum` when not `allow_minimum`); `InputError` else."""
    cleaned = text.strip()
    if cleaned.startswith("-") and _DECIMAL.fullmatch(cleaned[1:]):
        raise InputError(f"{cleaned} is negative: give a number of at least {minimum:g}")
    if not _DECIMAL.fullmatch(cleaned):
        raise InputError(f"{shown(text)} is not a number (digits 0-9 with an optional '.')")
    value = float(cleaned)
    if not math.isfinite(value):
        raise InputError(f"{shown(text)} is too large a number")
    if value < minimum or (value == minimum and not allow_minimum):
        raise InputError(f"{cleaned} is too small: give a number above {minimum:g}")
    if maximum is not None and value > maximum:
        raise InputError(f"{cleaned} is above the most allowed, {maximum:g}")
    return value


def parse_seconds(text: str, *, allow_zero: bool = False) -> float:
    """A finite, positive (or, with `allow_zero`, non-negative) number of seconds."""
    return parse_number(text, minimum=0.0, allow_minimum=allow_zero)


def shown(text: str, limit: int = 60) -> str:
    """A user's value quoted for a message: escaped (never a raw control character or lone
    surrogate, which the terminal could not print) and shortened."""
    quoted = ascii(text) if not text.isprintable() or _has_surrogates(text) else repr(text)
    return quoted if len(quoted) <= limit else f"{quoted[:limit]}… ({len(text)} characters)"


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class _Checked(click.ParamType[_Parsed, object]):
    """A click type whose parser raises `InputError`; the error becomes `InvalidValue`."""

    def parse(self, text: str) -> _Parsed:
        raise NotImplementedError

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> _Parsed:
        if not isinstance(value, str):
            value = str(value)  # a default given as a number
        try:
            return self.parse(value)
        except InputError as exc:
            raise InvalidValue(str(exc), ctx=ctx, param=param) from None


class WholeNumber(_Checked[int]):
    """A whole number in ASCII digits, optionally bounded."""

    name = "integer"

    def __init__(self, minimum: int | None = None, maximum: int | None = None) -> None:
        self.minimum = minimum
        self.maximum = maximum

    def parse(self, text: str) -> int:
        return parse_whole_number(text, minimum=self.minimum, maximum=self.maximum)


class Seconds(_Checked[float]):
    """A finite duration in seconds, above 0 (or 0 too, when `allow_zero`)."""

    name = "seconds"

    def __init__(self, *, allow_zero: bool = False) -> None:
        self.allow_zero = allow_zero

    def parse(self, text: str) -> float:
        return parse_seconds(text, allow_zero=self.allow_zero)


class Number(_Checked[float]):
    """A finite decimal number within [minimum, maximum]."""

    name = "number"

    def __init__(self, minimum: float = 0.0, maximum: float | None = None) -> None:
        self.minimum = minimum
        self.maximum = maximum

    def parse(self, text: str) -> float:
        return parse_number(text, minimum=self.minimum, maximum=self.maximum)


class RequestId(_Checked[str]):
    """A request id: 0x + 64 hex digits (lower-cased)."""

    name = "request_id"

    def parse(self, text: str) -> str:
        from crossdeck.track.updates import normalise_request_id

        return normalise_request_id(text)


class Address(_Checked[str]):
    """An address: with `evm_only`, an EVM one (0x + 40 hex digits) with a right EIP-55
    checksum when written in mixed case; else an address of any family with its checksum held
    (Solana and Bitcoin as well), whose chain's family the command checks once it knows the
    chain (the request model, through `quoting.builder`)."""

    name = "address"

    def __init__(self, *, evm_only: bool = True) -> None:
        self.evm_only = evm_only

    def parse(self, text: str) -> str:
        from crossdeck.models.addresses import (
            Family,
            checksum_problem,
            family_words,
            guess_family,
            well_formed_problem,
        )

        cleaned = text.strip()
        if self.evm_only and not _EVM_ADDRESS.fullmatch(cleaned):
            other = guess_family(cleaned)
            # a Solana or Bitcoin address here is a mix-up of accounts, not a typo: say so
            of = ""
            if other is not None and other is not Family.EVM:
                of = f" but {family_words(other).split(' (')[0]}"
            raise InputError(f"{shown(text)} is not an EVM address ('0x' and 40 hex digits){of}")
        problem = checksum_problem(cleaned) if self.evm_only else well_formed_problem(cleaned)
        if problem is not None:
            raise InputError(problem)
        return cleaned


class Currency(_Checked[str]):
    """A currency: an address (as `ANY_ADDRESS` takes it) or a symbol such as USDC or ETH,
    which the command resolves through /chains for the option's chain
    (`crossdeck.cli.currency_symbols`). Only the text is checked here: printable, no spaces."""

    name = "currency"
    _LONGEST = 100  # longer than any address form or symbol

    def parse(self, text: str) -> str:
        cleaned = text.strip()
        if not cleaned:
            raise InputError("no currency given: an address, or a symbol such as USDC")
        if len(cleaned) > self._LONGEST or not cleaned.isprintable() or " " in cleaned:
            raise InputError(
                f"{shown(text)} is neither a currency address nor a symbol",
                hint="e.g. USDC, ETH or 0x…; `crossdeck chains` lists each chain's currencies",
            )
        from crossdeck.models.addresses import NATIVE_CURRENCY, checksum_problem

        if cleaned in NATIVE_CURRENCY.values():
            return cleaned  # Bitcoin's is a placeholder, no address (`NATIVE_CURRENCY`)
        if cleaned.startswith("0x"):
            # an EVM address or a venue currency id (longer): only an EVM one has a checksum
            problem = checksum_problem(cleaned)
            if problem is not None:
                raise InputError(problem)
            return cleaned
        return cleaned  # a symbol, or a Solana / Bitcoin address (`currency_symbols.is_symbol`)


CHAIN_ID = WholeNumber(minimum=1)
POSITIVE = WholeNumber(minimum=1)
NON_NEGATIVE = WholeNumber(minimum=0)
SECONDS = Seconds()
SECONDS_OR_ZERO = Seconds(allow_zero=True)
PORT = WholeNumber(minimum=0, maximum=65535)
REQUEST_ID = RequestId()
ADDRESS = Address()  # an EVM account (the venue's users)
ANY_ADDRESS = Address(evm_only=False)  # of any family: the option's chain decides which
CURRENCY = Currency()


def check_argv(args: list[str]) -> None:
    """Refuse an argument that is not valid UTF-8 (it arrives as lone surrogates)."""
    for position, arg in enumerate(args, start=1):
        if _has_surrogates(arg):
            raise InputError(
                f"argument {position} ({shown(arg)}) holds bytes that are not UTF-8 text",
                hint="pass text in UTF-8; JSON can spell any character as \\uXXXX",
            )
