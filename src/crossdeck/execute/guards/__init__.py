"""Pre-sign guards: pure checks of a quote against itself and the wallet, in words.

The executor runs `check_quote` on the whole quote before the first signature, and
`check_item` again right before each item is signed (a POST answer may have appended steps).
Each guard returns `GuardResult(name, ok, message)`; any failure stops execution before
anything is signed (`require` raises `GuardRefused` listing every failure).

What is checked, and why:

- `request-id`: every step belongs to one request (a quote with none, or with no steps, is
  refused here like any other guard failure, exit 7, before anything is journalled).
- `endpoint-host`: every post and check endpoint is a path on the configured service (no
  absolute URL, scheme, host, `..`, fragment, nor a query that sets the signature; a check
  reads only its own request); `crossdeck.api.endpoints`.
- `message-signature`: a personal message (EIP-191) is refused unless the quote's flow calls
  for one; none of the flows crossdeck runs does (`messages.py`).
- `order-version`: `protocol.v2.orderData` is of a version the guards read (`v1`); an order of
  another version, or paymentDetails without an order, is not executed (`order.py`).
- `step-kind`: only item shapes this client understands, in steps of a matching kind, with a
  signature kind of eip712 or eip191; anything else is refused rather than guessed at.
- `venue-nonce`: authorize value.nonce == authorize body.nonce == deposit item nonce ==
  action.parameters.nonce (spec 4.4: otherwise the transfer cannot be tied to the request).
- `authorize-terms`: the NonceMapping is for this wallet, its body posts what is signed, and
  its id is the quote's orderId.
- `send-asset-destination` / `-token` / `-amount`: the venue transfer pays the quote's
  depository, in the quote's currencyIn, exactly currencyIn.amountFormatted.
- `send-asset-depository`: that depository is the venue's `protocol.v2.depository` in /chains
  (never a solver: the service's venue depository and its solver are different accounts).
- `payment-chain`: paymentDetails.chainId is the protocol's NAME of the chain ("base"); it is
  mapped to a chain id through the `/chains` answer (each chain's `id` and `protocol.v2.chainId`),
  never through a table here, because the chain set changes. A name `/chains` does not know is
  refused.
- `tx-chain-id`: an EVM transaction names its chain, and it is the chain being paid on.
- `tx-address`: `from` and `to` are EVM addresses (a Bitcoin or Solana item is refused by name).
- `rpc-configured`: the chain of every transaction has an RPC (checked before signing anything).
- `tx-from`: transactions are from the wallet that will sign them.
- `tx-payment`: a transaction pays protocol.v2.paymentDetails: to the depository (native:
  value == amount; ERC-20: no value), or an ERC-20 `approve` of the depository on the token
  for exactly the payment amount (never a standing allowance beyond it). On a deposit-address
  quote the step's `depositAddress` is where the transfer goes (the depository stays the
  contract behind it): a plain native transfer of the amount to it, or the token's
  `transfer` of the amount to it.
- `payment-request`: paymentDetails is what the request asked to send: its currency (never
  only its number of units), its chain, its amount exactly (EXACT_INPUT) or at most the quoted
  input plus slippage; each family's deposit is held to the request by the same rule
  (`payment_rule.py`: EVM `tx-payment`, `permit-terms`, Solana `solana-deposit`, the venue's
  `send-asset-amount`, `bitcoin-deposit`).
- `solana-*`: a Solana item read instruction by instruction, every lamport counted and held to
  the dialog's lines, every address derived (`solana.py`, `solana_ledger.py`,
  `solana_addresses.py`, `solana_size.py`; docs/guards.md lists them and what needs the node).
- `order-id`: a depository call carries the quote's orderId.
- `verifying-contract`: the NonceMapping domain (and the built SendAsset domain) has the
  all-zero verifying contract the spec requires.
- `permit-terms`: an EIP-3009 permit moves exactly the payment to the depository on the
  payment's chain and token, from the wallet.
"""

from crossdeck.execute.guards.base import (
    NONCE_MAPPING,
    GuardRefused,
    GuardResult,
    PaymentChain,
    failures,
    payment_chain,
    refused,
    require,
)
from crossdeck.execute.guards.quote import check_item, check_quote, item_guards
from crossdeck.execute.guards.transaction import rpc_chain_guard
from crossdeck.execute.guards.venue import built_domain_guard
from crossdeck.venue.currencies import expected_token_id

__all__ = [
    "NONCE_MAPPING",
    "GuardRefused",
    "GuardResult",
    "PaymentChain",
    "built_domain_guard",
    "check_item",
    "check_quote",
    "expected_token_id",
    "failures",
    "item_guards",
    "payment_chain",
    "refused",
    "require",
    "rpc_chain_guard",
]
