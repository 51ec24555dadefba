"""USDC on the venue's EVM chain (999): ERC-20, EIP-2612 permit, EIP-3009 authorizations."""

from __future__ import annotations

import os
import time

import pytest
from eth_account import Account
from eth_account.messages import encode_typed_data
from web3.exceptions import ContractLogicError
from web3.logs import DISCARD

from .helpers import PERMIT_FIELDS, ChainKit, sign_authorization, usdc_domain

pytestmark = pytest.mark.asyncio(loop_scope="module")

SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


@pytest.fixture(scope="module")
def chain_id() -> int:
    return 999


def hour_from_now() -> int:
    return int(time.time()) + 3600


async def test_metadata_and_domain_separator(kit: ChainKit) -> None:
    usdc = kit.usdc.functions
    assert await usdc.name().call() == "USD Coin"
    assert await usdc.symbol().call() == "USDC"
    assert await usdc.decimals().call() == 6
    # The separator the contract computes equals the EIP-712 one for this chain id, which
    # proves the CHAINID opcode reports the configured chain.
    probe = encode_typed_data(
        usdc_domain(kit.node),
        {"Permit": PERMIT_FIELDS},
        {
            "owner": kit.node.operator,
            "spender": kit.node.operator,
            "value": 0,
            "nonce": 0,
            "deadline": 0,
        },
    )
    assert await usdc.DOMAIN_SEPARATOR().call() == probe.header


async def test_transfer_moves_balances_and_logs(kit: ChainKit) -> None:
    alice = await kit.new_account(usdc=50_000_000)
    bob = Account.create().address
    receipt = await kit.call_fn(alice, kit.usdc, "transfer", bob, 12_345_678)
    assert receipt["status"] == 1
    assert await kit.usdc.functions.balanceOf(alice.address).call() == 50_000_000 - 12_345_678
    assert await kit.usdc.functions.balanceOf(bob).call() == 12_345_678
    (event,) = kit.usdc.events.Transfer().process_receipt(receipt, errors=DISCARD)
    assert (event.args.sender, event.args.receiver, event.args.value) == (
        alice.address,
        bob,
        12_345_678,
    )


async def test_transfer_beyond_balance_and_mint_by_stranger_revert(kit: ChainKit) -> None:
    alice = await kit.new_account(usdc=10)
    with pytest.raises(ContractLogicError, match="exceeds balance"):
        await kit.usdc.functions.transfer(kit.node.operator, 11).call({"from": alice.address})
    with pytest.raises(ContractLogicError, match="not the owner"):
        await kit.usdc.functions.mint(alice.address, 1).estimate_gas({"from": alice.address})


async def test_approve_and_transfer_from(kit: ChainKit) -> None:
    owner = await kit.new_account(usdc=1_000_000)
    spender = await kit.new_account()
    await kit.call_fn(owner, kit.usdc, "approve", spender.address, 600_000)
    assert await kit.usdc.functions.allowance(owner.address, spender.address).call() == 600_000
    receipt = await kit.call_fn(
        spender, kit.usdc, "transferFrom", owner.address, spender.address, 400_000
    )
    assert receipt["status"] == 1
    assert await kit.usdc.functions.allowance(owner.address, spender.address).call() == 200_000
    assert await kit.usdc.functions.balanceOf(spender.address).call() == 400_000


def sign_permit(owner, kit: ChainKit, spender: str, value: int, nonce: int, deadline: int):
    message = {
        "owner": owner.address,
        "spender": spender,
        "value": value,
        "nonce": nonce,
        "deadline": deadline,
    }
    signed = owner.sign_typed_data(usdc_domain(kit.node), {"Permit": PERMIT_FIELDS}, message)
    return signed.v, signed.r.to_bytes(32, "big"), signed.s.to_bytes(32, "big")


async def test_permit_sets_allowance_once(kit: ChainKit) -> None:
    owner = Account.create()  # holds nothing: a permit costs the owner no gas
    relayer = await kit.new_account()
    deadline = hour_from_now()
    v, r, s = sign_permit(owner, kit, relayer.address, 777, 0, deadline)
    args = (owner.address, relayer.address, 777, deadline, v, r, s)

    receipt = await kit.call_fn(relayer, kit.usdc, "permit", *args)

    assert receipt["status"] == 1
    assert await kit.usdc.functions.allowance(owner.address, relayer.address).call() == 777
    assert await kit.usdc.functions.nonces(owner.address).call() == 1
    with pytest.raises(ContractLogicError, match="invalid signature"):
        await kit.usdc.functions.permit(*args).call({"from": relayer.address})


async def test_permit_rejects_expired_and_foreign_signatures(kit: ChainKit) -> None:
    owner = Account.create()
    other = Account.create()
    past = int(time.time()) - 10
    v, r, s = sign_permit(owner, kit, other.address, 1, 0, past)
    with pytest.raises(ContractLogicError, match="expired"):
        await kit.usdc.functions.permit(owner.address, other.address, 1, past, v, r, s).call()
    deadline = hour_from_now()
    v, r, s = sign_permit(other, kit, other.address, 1, 0, deadline)  # signed by the wrong key
    with pytest.raises(ContractLogicError, match="invalid signature"):
        await kit.usdc.functions.permit(owner.address, other.address, 1, deadline, v, r, s).call()


async def test_transfer_with_authorization_and_replay(kit: ChainKit) -> None:
    payer = await kit.new_account(native=0, usdc=5_000_000)
    payee = Account.create().address
    relayer = await kit.new_account()
    auth = sign_authorization(
        payer,
        kit.node,
        primary="TransferWithAuthorization",
        to=payee,
        value=2_000_000,
        valid_before=hour_from_now(),
    )
    args = [auth[k] for k in ("from", "to", "value", "validAfter", "validBefore", "nonce")]
    args += [auth["v"], auth["r"], auth["s"]]

    receipt = await kit.call_fn(relayer, kit.usdc, "transferWithAuthorization", *args)

    assert receipt["status"] == 1
    assert await kit.usdc.functions.balanceOf(payee).call() == 2_000_000
    assert await kit.usdc.functions.balanceOf(payer.address).call() == 3_000_000
    assert await kit.usdc.functions.authorizationState(payer.address, auth["nonce"]).call()
    (used,) = kit.usdc.events.AuthorizationUsed().process_receipt(receipt, errors=DISCARD)
    assert used.args.authorizer == payer.address
    assert used.args.nonce == auth["nonce"]

    with pytest.raises(ContractLogicError, match="authorization is used"):
        await kit.usdc.functions.transferWithAuthorization(*args).estimate_gas(
            {"from": relayer.address}
        )
    replay = await kit.sign(
        relayer,
        {
            "to": kit.node.usdc,
            "data": kit.usdc.encode_abi("transferWithAuthorization", args=args),
            "gas": 200_000,
        },
    )
    tx_hash = await kit.w3.eth.send_raw_transaction(replay)
    assert (await kit.w3.eth.wait_for_transaction_receipt(tx_hash))["status"] == 0
    assert await kit.usdc.functions.balanceOf(payee).call() == 2_000_000


async def test_authorization_validity_window_and_signature_checks(kit: ChainKit) -> None:
    payer = await kit.new_account(native=0, usdc=1_000)
    payee = Account.create().address
    usdc = kit.usdc.functions

    def args_of(auth: dict) -> list:
        return [auth[k] for k in ("from", "to", "value", "validAfter", "validBefore", "nonce")] + [
            auth["v"],
            auth["r"],
            auth["s"],
        ]

    expired = sign_authorization(
        payer,
        kit.node,
        primary="TransferWithAuthorization",
        to=payee,
        value=1,
        valid_before=int(time.time()) - 1,
    )
    with pytest.raises(ContractLogicError, match="expired"):
        await usdc.transferWithAuthorization(*args_of(expired)).call()
    early = sign_authorization(
        payer,
        kit.node,
        primary="TransferWithAuthorization",
        to=payee,
        value=1,
        valid_after=hour_from_now(),
        valid_before=hour_from_now() + 60,
    )
    with pytest.raises(ContractLogicError, match="not yet valid"):
        await usdc.transferWithAuthorization(*args_of(early)).call()
    good = sign_authorization(
        payer,
        kit.node,
        primary="TransferWithAuthorization",
        to=payee,
        value=1,
        valid_before=hour_from_now(),
    )
    # The malleable twin (n - s, flipped v) recovers the same signer: it must be refused.
    s_int = int.from_bytes(good["s"], "big")
    twin = {**good, "s": (SECP256K1_N - s_int).to_bytes(32, "big"), "v": 55 - good["v"]}
    with pytest.raises(ContractLogicError, match="'s' value"):
        await usdc.transferWithAuthorization(*args_of(twin)).call()
    # The same signature presented as a receive authorization is not valid.
    with pytest.raises(ContractLogicError, match="invalid signature"):
        await usdc.receiveWithAuthorization(*args_of(good)).call({"from": payee})
    assert await usdc.transferWithAuthorization(*args_of(good)).call() == []


async def test_receive_with_authorization_only_by_the_payee(kit: ChainKit) -> None:
    payer = await kit.new_account(native=0, usdc=900)
    payee = await kit.new_account()
    stranger = await kit.new_account()
    auth = sign_authorization(
        payer,
        kit.node,
        primary="ReceiveWithAuthorization",
        to=payee.address,
        value=900,
        valid_before=hour_from_now(),
    )
    args = [auth[k] for k in ("from", "to", "value", "validAfter", "validBefore", "nonce")]
    args += [auth["v"], auth["r"], auth["s"]]
    with pytest.raises(ContractLogicError, match="caller must be the payee"):
        await kit.usdc.functions.receiveWithAuthorization(*args).call({"from": stranger.address})
    receipt = await kit.call_fn(payee, kit.usdc, "receiveWithAuthorization", *args)
    assert receipt["status"] == 1
    assert await kit.usdc.functions.balanceOf(payee.address).call() == 900


async def test_cancelled_authorization_cannot_be_used(kit: ChainKit) -> None:
    payer = await kit.new_account(usdc=100)
    payee = Account.create().address
    auth = sign_authorization(
        payer,
        kit.node,
        primary="TransferWithAuthorization",
        to=payee,
        value=100,
        valid_before=hour_from_now(),
        nonce=os.urandom(32),
    )
    cancel = payer.sign_typed_data(
        usdc_domain(kit.node),
        {
            "CancelAuthorization": [
                {"name": "authorizer", "type": "address"},
                {"name": "nonce", "type": "bytes32"},
            ]
        },
        {"authorizer": payer.address, "nonce": auth["nonce"]},
    )
    receipt = await kit.call_fn(
        payer,
        kit.usdc,
        "cancelAuthorization",
        payer.address,
        auth["nonce"],
        cancel.v,
        cancel.r.to_bytes(32, "big"),
        cancel.s.to_bytes(32, "big"),
    )
    assert receipt["status"] == 1
    args = [auth[k] for k in ("from", "to", "value", "validAfter", "validBefore", "nonce")]
    args += [auth["v"], auth["r"], auth["s"]]
    with pytest.raises(ContractLogicError, match="used or canceled"):
        await kit.usdc.functions.transferWithAuthorization(*args).call()
