"""`bridge --deposit-fee-payer-keypair FILE`: the key of a Solana deposit's second signer.

A `depositFeePayer` other than the wallet must sign the deposit too (it pays the fees). Its
key is given for the one run, as the Solana CLI's `--fee-payer KEYPAIR` takes one: a keypair
file (the Solana CLI's JSON array of 64 numbers, or the base58 of the 64 bytes), or `-` for
stdin. A fee payer is usually another account than the trading wallet (a sponsor's or an
operations key), so it is not made the profile's key: it is read into memory for this run
only, never written, printed or journalled. Everything here is checked before a quote is
asked for, so a missing or wrong key ends the run (exit 3) with nothing signed.
"""

from __future__ import annotations

import sys

from crossdeck.base.errors import InputError
from crossdeck.base.secret import Secret
from crossdeck.wallet.errors import InvalidKeyError

OPTION = "--deposit-fee-payer-keypair"


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(64 * 1024)  # a keypair file is < 1 KiB; never slurp a device
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise InputError(f"{OPTION}: cannot read {path}: {reason}") from None


def fee_payer_key(
    path: str | None, named: str | None, wallet: str, *, from_solana: bool
) -> Secret | None:
    """The fee payer's keypair when the run needs one; InputError (exit 3) naming the option
    when it is missing, unreadable, or not the key of the address `--deposit-fee-payer` names."""
    if path is None:
        if from_solana and wallet and named and named != wallet:
            raise InputError(
                f"--deposit-fee-payer {named} is not this wallet ({wallet}): it signs the "
                f"deposit too, so crossdeck needs its key for this run",
                hint=f"give it with {OPTION} FILE (a Solana CLI keypair file; `-` reads stdin)",
            )
        return None
    if not from_solana:
        raise InputError(f"{OPTION} applies to SVM origins only (Solana, 792703809, or another "
                         "chain /chains lists with vmType svm)")  # fmt: skip
    from crossdeck.wallet.solana import address_of, read_keypair

    try:
        keypair = read_keypair(_read(path))
    except InvalidKeyError as exc:
        raise InputError(f"{OPTION}: {exc}") from None
    address = address_of(keypair)
    if named is None:
        raise InputError(
            f"{OPTION} needs --deposit-fee-payer naming its address",
            hint=f"add --deposit-fee-payer {address}",
        )
    if address != named:
        raise InputError(
            f"{OPTION} holds the key of {address}, not of --deposit-fee-payer {named}: refused "
            "(nothing was signed)"
        )
    if address == wallet:
        return None  # the wallet's own key signs already
    return keypair
