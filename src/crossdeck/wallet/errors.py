"""Errors of the wallet layer: secrets, keys and the EVM node.

Messages never carry a key or a password, only what went wrong and what to do about it.
"""

from __future__ import annotations

from crossdeck.base.errors import CrossdeckError, InputError
from crossdeck.base.exitcodes import ExitCode


class NoSecretError(CrossdeckError):
    """A wallet key or API key is needed but none is stored for the profile."""

    exit_code = ExitCode.NO_SECRET


class KeyringError(CrossdeckError):
    """The keyring backend failed (locked, unavailable, wrong password)."""

    exit_code = ExitCode.NO_SECRET


class KeyringLockedError(KeyringError):
    """The encrypted file keyring needs a password and there is no way to ask for one."""


class KeyringPasswordError(KeyringError):
    """The password given for the encrypted file keyring does not open it."""


class InvalidKeyError(InputError):
    """A private key or keystore file could not be read as a secp256k1 key."""


class RpcError(CrossdeckError):
    """The EVM node answered with an error."""


class RpcUnreachableError(RpcError):
    """The EVM node could not be reached, or did not answer in time."""

    exit_code = ExitCode.NETWORK


class ChainMismatchError(RpcError):
    """The RPC URL serves another chain than the one it is configured for."""

    exit_code = ExitCode.INVALID_INPUT


class SimulationUnsupportedError(RpcError):
    """The EVM node has no `eth_simulateV1`: what a transaction would do cannot be seen."""


class WouldRevertError(RpcError):
    """Gas estimation says the transaction would revert; nothing was sent."""

    exit_code = ExitCode.FAILED


class TransactionRevertedError(RpcError):
    """A transaction was mined and reverted."""

    exit_code = ExitCode.FAILED

    def __init__(self, tx_hash: str, *, chain_id: int | None = None) -> None:
        where = f" on chain {chain_id}" if chain_id is not None else ""
        super().__init__(
            f"transaction {tx_hash} reverted{where}",
            hint="nothing was transferred; check the balance, allowance and quote, then retry",
        )
        self.tx_hash = tx_hash
        self.chain_id = chain_id


class ReceiptTimeoutError(RpcError):
    """No receipt arrived in time; the transaction may still be mined later."""

    exit_code = ExitCode.TIMEOUT

    def __init__(self, tx_hash: str, timeout: float) -> None:
        super().__init__(
            f"no receipt for {tx_hash} after {timeout:g}s",
            hint="the transaction may still be mined; do not resend it, look it up later",
        )
        self.tx_hash = tx_hash
