# pragma version 0.4.3
"""
@title Depository of the demo world
@notice Takes native and ERC-20 deposits, each tagged with the bytes32 order id of the quote
        it pays for, and emits `Deposit` so the solver can match funds to orders. The owner
        (the solver) may withdraw deposited liquidity.
"""

from ethereum.ercs import IERC20


interface IERC3009:
    def receiveWithAuthorization(
        from_: address,
        to: address,
        amount: uint256,
        valid_after: uint256,
        valid_before: uint256,
        nonce: bytes32,
        v: uint8,
        r: bytes32,
        s: bytes32,
    ): nonpayable


event Deposit:
    depositor: indexed(address)
    token: indexed(address)
    amount: uint256
    id: indexed(bytes32)

event Withdrawal:
    token: indexed(address)
    to: indexed(address)
    amount: uint256

owner: public(address)


@deploy
def __init__():
    self.owner = msg.sender


@payable
@external
def depositNative(depositor: address, id: bytes32):
    assert msg.value > 0, "Depository: zero deposit"
    log Deposit(depositor=depositor, token=empty(address), amount=msg.value, id=id)


@external
def depositErc20(depositor: address, token: address, amount: uint256, id: bytes32):
    assert amount > 0, "Depository: zero deposit"
    assert extcall IERC20(token).transferFrom(
        msg.sender, self, amount, default_return_value=True
    ), "Depository: transferFrom failed"
    log Deposit(depositor=depositor, token=token, amount=amount, id=id)


@external
def depositErc20WithAuthorization(
    token: address,
    depositor: address,
    amount: uint256,
    valid_after: uint256,
    valid_before: uint256,
    auth_nonce: bytes32,
    v: uint8,
    r: bytes32,
    s: bytes32,
    id: bytes32,
):
    # The depositor signed an EIP-3009 ReceiveWithAuthorization to this contract, so anyone
    # (typically the service, paying gas) can submit the deposit on the depositor's behalf.
    assert amount > 0, "Depository: zero deposit"
    extcall IERC3009(token).receiveWithAuthorization(
        depositor, self, amount, valid_after, valid_before, auth_nonce, v, r, s
    )
    log Deposit(depositor=depositor, token=token, amount=amount, id=id)


@external
def withdrawNative(to: address, amount: uint256):
    assert msg.sender == self.owner, "Depository: caller is not the owner"
    send(to, amount)
    log Withdrawal(token=empty(address), to=to, amount=amount)


@external
def withdrawErc20(token: address, to: address, amount: uint256):
    assert msg.sender == self.owner, "Depository: caller is not the owner"
    assert extcall IERC20(token).transfer(
        to, amount, default_return_value=True
    ), "Depository: transfer failed"
    log Withdrawal(token=token, to=to, amount=amount)
