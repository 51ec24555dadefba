"""Addresses by chain family (models.addresses, models.bech32, models.base58): the BIPs' own
vectors for bech32 / bech32m segwit addresses (BIP-173, BIP-350), base58check P2PKH / P2SH
addresses and their payloads, Solana keys (base58 of 32 bytes, case kept), and the request
holding each address field to its chain's family as /chains' vmType says it."""

from __future__ import annotations

from typing import Any

import pytest

from crossdeck.models import QuoteRequest, QuoteRequestError
from crossdeck.models.addresses import (
    Family,
    UnknownFamily,
    address_problem,
    canonical_address,
    family_of,
    guess_family,
    same_address,
    well_formed_problem,
)
from crossdeck.models.base58 import b58check_decode, b58check_encode, b58decode, b58encode
from crossdeck.models.bech32 import Encoding, decode, decode_segwit, encode, encode_segwit

# BIP-350's valid segwit addresses (BIP-173's, re-checked under BIP-350) on mainnet, with the
# scriptPubKey each one pays: version opcode, push length, program
VALID_SEGWIT = {
    "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4": "0014751e76e8199196d454941c45d1b3a323f1433bd6",
    "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y": (
        "5128751e76e8199196d454941c45d1b3a323f1433bd6751e76e8199196d454941c45d1b3a323f1433bd6"
    ),
    "BC1SW50QGDZ25J": "6002751e",
    "bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs": "5210751e76e8199196d454941c45d1b3a323",
    "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0": (
        "512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
    ),
}
# BIP-350's invalid segwit addresses, each with what is wrong with it
INVALID_SEGWIT = {
    # a network of its own
    "tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut": "not a Bitcoin address",
    # version 1+ written with bech32's constant, and version 0 with bech32m's
    "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd": "bech32m checksum",
    "BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL": "bech32m checksum",
    "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh": "bech32 checksum",
    # program lengths no segwit version allows
    "bc1rw5uspcuh": "2 to 40 bytes",
    "bc10w508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kw5rljs90": "2 to 40",
    "BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P": "20 or 32 bytes",
    # mixed case, non-zero padding, an empty program
    "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqZk5jj0": "mixes upper and lower",
    "bc1gmk9yu": "has no witness version",
}
# BIP-173 / BIP-350 plain strings (not addresses): valid under their own constant
VALID_BECH32 = ["A12UEL5L", "a12uel5l", "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw"]
VALID_BECH32M = ["A1LQFN3A", "a1lqfn3a", "abcdef1l7aum6echk45nj3s0wdvt2fg8x9yrzpqzd3ryx"]
# base58check: the genesis block's address, and the P2PKH / P2SH of one hash160 each
P2PKH_GENESIS = "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"
P2PKH = ("1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH", "00751e76e8199196d454941c45d1b3a323f1433bd6")
P2SH = ("3LRW7jeCvQCRdPF8S3yUCfRAx4eqXFmdcr", "05cd7b44d0b03f2d026d1e586d7ae18903b0d385f6")
# Solana: the system program (32 zero bytes), the USDC mint, a wallet from solana.md
SYSTEM = "11111111111111111111111111111111"
SOLANA_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
SOLANA_WALLET = "27q8k7t3VAdZgeG679xpgmm9WD4g3EgVfNQaVgfGocPL"
EVM = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"


def script_of(address: str) -> str:
    version, program = decode_segwit("bc", address)
    opcode = 0 if version == 0 else 0x50 + version
    return bytes([opcode, len(program)]).hex() + program.hex()


@pytest.mark.parametrize("address", sorted(VALID_SEGWIT))
def test_the_bips_valid_segwit_addresses_decode_to_their_scripts(address: str) -> None:
    assert script_of(address) == VALID_SEGWIT[address]
    assert address_problem(address, Family.BITCOIN) is None
    version, program = decode_segwit("bc", address)
    assert encode_segwit("bc", version, program) == address.lower()


@pytest.mark.parametrize("address", sorted(INVALID_SEGWIT))
def test_the_bips_invalid_segwit_addresses_are_refused_saying_why(address: str) -> None:
    problem = address_problem(address, Family.BITCOIN)
    assert problem is not None
    assert INVALID_SEGWIT[address] in problem


def test_plain_strings_check_under_their_own_constant_only() -> None:
    for text in VALID_BECH32:
        assert decode(text)[2] is Encoding.BECH32
    for text in VALID_BECH32M:
        assert decode(text)[2] is Encoding.BECH32M
    hrp, data, _ = decode("abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw")
    assert encode(hrp, data, Encoding.BECH32) == "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw"


def test_every_single_character_change_breaks_the_checksum() -> None:
    address = "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0"
    charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
    changed = 0
    for position in range(4, len(address)):
        for char in charset:
            if char == address[position]:
                continue
            typo = address[:position] + char + address[position + 1 :]
            assert address_problem(typo, Family.BITCOIN) is not None, typo
            changed += 1
    assert changed == (len(address) - 4) * 31


def test_base58check_payloads_and_checksum() -> None:
    for address, payload in (P2PKH, P2SH):
        assert b58check_decode(address).hex() == payload
        assert b58check_encode(bytes.fromhex(payload)) == address
        assert address_problem(address, Family.BITCOIN) is None
    assert address_problem(P2PKH_GENESIS, Family.BITCOIN) is None
    typo = P2PKH_GENESIS[:-1] + ("b" if P2PKH_GENESIS[-1] != "b" else "c")
    problem = address_problem(typo, Family.BITCOIN)
    assert problem is not None and "checksum" in problem
    # a valid base58check of another version is no mainnet address: testnet P2PKH (0x6f,
    # 'm…'), and a '1…' text whose payload is no 20-byte hash
    testnet = b58check_encode(bytes([0x6F]) + bytes(20))
    assert address_problem(testnet, Family.BITCOIN) is not None
    short = b58check_encode(bytes(11))
    assert short.startswith("1")
    problem = address_problem(short, Family.BITCOIN)
    assert problem is not None and "P2PKH or P2SH" in problem


def test_base58_round_trips_with_leading_zeros() -> None:
    for raw in (b"", b"\0", b"\0\0\x01", bytes(32), bytes(range(64))):
        assert b58decode(b58encode(raw)) == raw
    assert b58decode(SYSTEM) == bytes(32)
    with pytest.raises(ValueError, match="not base58"):
        b58decode("0OIl")
    with pytest.raises(ValueError, match="longer than any key"):
        b58decode("1" * 500)


def test_solana_keys_are_32_bytes_in_their_case() -> None:
    for key in (SYSTEM, SOLANA_USDC, SOLANA_WALLET):
        assert address_problem(key, Family.SOLANA) is None
        assert guess_family(key) is Family.SOLANA
    # the lower-cased mint is another 32-byte key or no key at all: never the same address
    assert not same_address(SOLANA_USDC, SOLANA_USDC.lower())
    assert canonical_address(SOLANA_USDC) == SOLANA_USDC
    problem = address_problem(SOLANA_USDC[:-4], Family.SOLANA)
    assert problem is not None and "a key is 32" in problem
    problem = address_problem("So1ana0", Family.SOLANA)
    assert problem is not None and "not base58" in problem


def test_evm_and_bech32_compare_without_case() -> None:
    assert same_address(EVM, EVM.lower())
    address = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
    assert same_address(address, address.upper())


def test_well_formed_names_the_family_a_text_points_to() -> None:
    assert well_formed_problem(EVM) is None
    assert well_formed_problem(SOLANA_WALLET) is None
    assert well_formed_problem(P2SH[0]) is None
    wrong_eip55 = EVM[:-1] + EVM[-1].lower() if EVM[-1].isupper() else EVM.replace("f", "F", 1)
    problem = well_formed_problem(wrong_eip55)
    assert problem is not None and "EIP-55" in problem
    problem = well_formed_problem("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5")
    assert problem is not None and "checksum" in problem
    problem = well_formed_problem("hello")
    assert problem is not None and "no address" in problem


def test_family_of_reads_vmtype_and_never_guesses() -> None:
    assert family_of(8453, "evm") is Family.EVM
    assert family_of(1337, "hypevm") is Family.EVM
    assert family_of(792703809, "svm") is Family.SOLANA
    assert family_of(8253038, "bvm") is Family.BITCOIN
    assert family_of(792703809) is Family.SOLANA  # without /chains: what is public
    assert family_of(42, "SVM") is Family.SOLANA  # /chains decides, not the id
    with pytest.raises(UnknownFamily, match="'tvm'"):
        family_of(728126428, "tvm")


# --- the request holds each address to its chain's family --------------------------------


def body(**over: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "user": EVM,
        "originChainId": 8453,
        "destinationChainId": 792703809,
        "originCurrency": BASE_USDC,
        "destinationCurrency": SOLANA_USDC,
        "amount": "10000000",
        "tradeType": "EXACT_INPUT",
        "recipient": SOLANA_WALLET,
    }
    fields.update(over)
    return {k: v for k, v in fields.items() if v is not None}


def rejects(field: str, vm_types: dict[int, str] | None = None, **over: Any) -> str:
    with pytest.raises(QuoteRequestError) as info:
        QuoteRequest.build(vm_types=vm_types, **body(**over))
    assert info.value.field == field
    return str(info.value)


def test_a_solana_recipient_and_mint_are_kept_in_their_case() -> None:
    request = QuoteRequest.build(**body())
    sent = request.to_body()
    assert sent["recipient"] == SOLANA_WALLET
    assert sent["destinationCurrency"] == SOLANA_USDC


def test_a_bitcoin_recipient_of_each_form() -> None:
    btc = "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8"  # the public placeholder for BTC
    for recipient in (*VALID_SEGWIT, P2PKH[0], P2SH[0]):
        request = QuoteRequest.build(
            **body(destinationChainId=8253038, destinationCurrency=btc, recipient=recipient)
        )
        assert request.recipient == recipient


def test_a_recipient_of_the_wrong_family_says_which_family_the_chain_takes() -> None:
    message = rejects("recipient", recipient=EVM)
    assert "an EVM address, but chain 792703809 takes a Solana address" in message
    message = rejects("recipient", destinationChainId=8453, destinationCurrency=BASE_USDC)
    assert "is a Solana address, but chain 8453 takes an EVM address" in message
    message = rejects(
        "recipient",
        destinationChainId=8253038,
        destinationCurrency="bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8",
    )
    assert "takes a Bitcoin address" in message


def test_a_lower_cased_mint_is_refused_not_fixed() -> None:
    message = rejects("destinationCurrency", destinationCurrency=SOLANA_USDC.lower())
    assert "Solana address" in message


def test_the_user_and_refund_are_of_the_origin_family() -> None:
    rejects("user", user=SOLANA_WALLET)
    rejects("refundTo", refundTo=SOLANA_WALLET)
    solana_origin = body(
        user=SOLANA_WALLET,
        originChainId=792703809,
        originCurrency=SYSTEM,
        destinationChainId=8453,
        destinationCurrency="0x" + "0" * 40,
        recipient=EVM,
        depositFeePayer=EVM,
    )
    with pytest.raises(QuoteRequestError) as info:
        QuoteRequest.build(**solana_origin)
    assert info.value.field == "depositFeePayer"
    solana_origin["depositFeePayer"] = SOLANA_USDC
    assert QuoteRequest.build(**solana_origin).deposit_fee_payer == SOLANA_USDC


def test_chains_vmtype_decides_over_the_id() -> None:
    # a chain /chains calls svm takes Solana addresses whatever its id
    QuoteRequest.build(
        vm_types={8453: "evm", 4242: "svm"},
        **body(destinationChainId=4242),
    )
    message = rejects("destinationChainId", vm_types={792703809: "tvm"})
    assert "cannot read" in message
