"""One signer interface, one backend per place a key lives and per chain family.

Every run signs through a `SignerBackend`: it names its chain family, the address it signs
for and where its key is (`SignerSource`, in words for the confirm dialog, `bridge` and
`--json`). The EVM family's interface is `EvmSigner`; another family (Solana) adds its own
protocol beside it on the same base, and the executor asks for the backend of the family an
item needs.

EVM backends:
- `KeySigner`: a private key held in this process for the run: the keyring's, the world
  file's demo key, or one unlocked from a Foundry keystore (`foundry_keystore`). It signs
  transactions itself; crossdeck broadcasts the signed bytes.
- `BrowserSigner` (`wallet.browser`): the user's browser wallet through a loopback page. The
  wallet signs typed data and sends transactions itself (`wallet_sends`): crossdeck gets a
  hash back, not signed bytes.
- `ReadOnlySigner`: an address with no key (`--from`): everything that would sign is refused.

Every method is async: a browser wallet answers when the user clicks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from crossdeck.base.errors import InputError

if TYPE_CHECKING:
    from crossdeck.wallet.signer import SignedTransaction, Signer

SignerKind = Literal["keyring", "world", "keystore", "browser", "read-only"]
Family = Literal["evm", "solana", "bitcoin"]


def short_address(address: str) -> str:
    """`0xabcd…1234`: enough to recognise an address in a sentence."""
    return f"{address[:6]}…{address[-4:]}" if len(address) > 12 else address


@dataclass(frozen=True)
class SignerSource:
    """Which signer signs, in words; never a secret (a keystore's path is not one)."""

    kind: SignerKind
    address: str
    where: str = ""
    """The keystore file, or the browser page's origin (never its token)."""

    @property
    def signs(self) -> bool:
        return self.kind != "read-only"

    def words(self) -> str:
        """The sentence the confirm dialog and `bridge` print: who will sign, and where."""
        short = short_address(self.address)
        match self.kind:
            case "keyring":
                return f"the keyring key {short}"
            case "world":
                return f"the world's demo key {short}"
            case "keystore":
                return f"the keystore {self.where} ({short})"
            case "browser":
                return f"your browser wallet {short}: confirm there"
            case "read-only":
                return f"nobody: {short} is read-only (--from), nothing can be signed"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "address": self.address, "where": self.where or None}


class ReadOnlyError(InputError):
    """Something would have to be signed, and the signer is a read-only address (exit 3)."""


class SignerBackend(Protocol):
    """What every backend of every family has."""

    @property
    def family(self) -> Family: ...

    @property
    def address(self) -> str:
        """The address signatures recover to (checksummed for EVM)."""
        ...

    @property
    def source(self) -> SignerSource: ...

    async def aclose(self) -> None:
        """Let go of what the backend holds (the browser page stops serving)."""
        ...


@runtime_checkable
class EvmSigner(SignerBackend, Protocol):
    """An EVM signer. `wallet_sends`: the backend sends transactions itself and returns their
    hash (`send_transaction`); otherwise it returns signed bytes (`sign_transaction`) and
    crossdeck broadcasts them. `words`: what is being signed, as the CLI and the app describe
    it, for a backend that shows it again (the browser page)."""

    @property
    def wallet_sends(self) -> bool: ...

    async def sign_typed_data(self, typed_data: dict[str, Any], words: Sequence[str] = ()) -> bytes:
        """65 bytes r || s || v (v 27/28) over EIP-712 typed data, as given (complete)."""
        ...

    async def sign_message(self, message: str, words: Sequence[str] = ()) -> bytes:
        """65 bytes over an EIP-191 personal message (`0x` + 64 hex: those 32 raw bytes)."""
        ...

    async def sign_transaction(
        self, tx: dict[str, Any], words: Sequence[str] = ()
    ) -> SignedTransaction:
        """A signed transaction (backends whose `wallet_sends` is False)."""
        ...

    async def send_transaction(self, tx: dict[str, Any], words: Sequence[str] = ()) -> str:
        """Have the wallet send `tx`; its hash (backends whose `wallet_sends` is True)."""
        ...


class KeySigner:
    """An EVM signer over a private key held in this process (keyring, world, keystore)."""

    family: Family = "evm"
    wallet_sends = False

    def __init__(self, key: Signer, kind: SignerKind = "keyring", where: str = "") -> None:
        self._key = key
        self._source = SignerSource(kind, key.address, where)

    def __repr__(self) -> str:
        return f"KeySigner({self._source.kind}, address={self.address})"

    @property
    def address(self) -> str:
        return self._key.address

    @property
    def source(self) -> SignerSource:
        return self._source

    async def sign_typed_data(self, typed_data: dict[str, Any], words: Sequence[str] = ()) -> bytes:
        return self._key.sign_typed_data(typed_data)

    async def sign_message(self, message: str, words: Sequence[str] = ()) -> bytes:
        return self._key.sign_eip191(message)

    async def sign_transaction(
        self, tx: dict[str, Any], words: Sequence[str] = ()
    ) -> SignedTransaction:
        return self._key.sign_transaction(tx)

    async def send_transaction(self, tx: dict[str, Any], words: Sequence[str] = ()) -> str:
        raise TypeError("a key signer returns signed bytes; crossdeck broadcasts them")

    async def aclose(self) -> None:
        return None


class ReadOnlySigner:
    """An address with no key (`--from`): quotes, status and balances use it; anything that
    would be signed is refused, before it is asked for."""

    family: Family = "evm"
    wallet_sends = False

    def __init__(self, address: str) -> None:
        self._source = SignerSource("read-only", address)

    def __repr__(self) -> str:
        return f"ReadOnlySigner(address={self.address})"

    @property
    def address(self) -> str:
        return self._source.address

    @property
    def source(self) -> SignerSource:
        return self._source

    def refuse(self, what: str) -> ReadOnlyError:
        return ReadOnlyError(
            f"read-only: {self.address} was given with --from and has no key, so {what} "
            "cannot be signed; nothing was sent",
            hint="sign with the keyring key, --account NAME, --keystore PATH or --browser",
        )

    async def sign_typed_data(self, typed_data: dict[str, Any], words: Sequence[str] = ()) -> bytes:
        raise self.refuse("typed data")

    async def sign_message(self, message: str, words: Sequence[str] = ()) -> bytes:
        raise self.refuse("a message")

    async def sign_transaction(
        self, tx: dict[str, Any], words: Sequence[str] = ()
    ) -> SignedTransaction:
        raise self.refuse("a transaction")

    async def send_transaction(self, tx: dict[str, Any], words: Sequence[str] = ()) -> str:
        raise self.refuse("a transaction")

    async def aclose(self) -> None:
        return None
