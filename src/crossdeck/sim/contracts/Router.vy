# pragma version 0.4.3
"""
@title Swap router of the demo world
@notice Same-chain swaps the user executes in their own transaction (the service's default for
        a same-chain swap): the input is taken by value (native) or by `transferFrom` after an
        approve (ERC-20), the output is paid to the recipient from the router's own liquidity,
        and native value beyond the input goes back to the caller. The quote's terms travel in
        the calldata; `Swap` carries the request's order id so the service can see it done.
        The owner (the solver) funds and drains the liquidity.
"""

from ethereum.ercs import IERC20


event Swap:
    sender: indexed(address)
    recipient: indexed(address)
    token_in: address
    amount_in: uint256
    token_out: address
    amount_out: uint256
    id: indexed(bytes32)

owner: public(address)


@deploy
def __init__():
    self.owner = msg.sender


@payable
@external
def __default__():
    # native liquidity sent by the owner
    pass


@payable
@external
@nonreentrant
def swap(
    token_in: address,
    amount_in: uint256,
    token_out: address,
    amount_out: uint256,
    recipient: address,
    id: bytes32,
):
    assert amount_in > 0 and amount_out > 0, "Router: zero amount"
    assert token_in != token_out, "Router: same token"
    assert recipient != empty(address), "Router: no recipient"
    if token_in == empty(address):
        assert msg.value >= amount_in, "Router: value below the input"
        surplus: uint256 = msg.value - amount_in
        if surplus > 0:
            raw_call(msg.sender, b"", value=surplus)
    else:
        assert msg.value == 0, "Router: value beside a token input"
        assert extcall IERC20(token_in).transferFrom(
            msg.sender, self, amount_in, default_return_value=True
        ), "Router: transferFrom failed"
    if token_out == empty(address):
        raw_call(recipient, b"", value=amount_out)
    else:
        assert extcall IERC20(token_out).transfer(
            recipient, amount_out, default_return_value=True
        ), "Router: transfer failed"
    log Swap(
        sender=msg.sender,
        recipient=recipient,
        token_in=token_in,
        amount_in=amount_in,
        token_out=token_out,
        amount_out=amount_out,
        id=id,
    )


@external
def withdrawNative(to: address, amount: uint256):
    assert msg.sender == self.owner, "Router: caller is not the owner"
    raw_call(to, b"", value=amount)


@external
def withdrawErc20(token: address, to: address, amount: uint256):
    assert msg.sender == self.owner, "Router: caller is not the owner"
    assert extcall IERC20(token).transfer(
        to, amount, default_return_value=True
    ), "Router: transfer failed"
