# pragma version 0.4.3
"""
@title USD Coin of the demo world
@notice A 6-decimals ERC-20 with the two gasless-approval schemes the real USDC (v2) offers:
        EIP-2612 `permit` and EIP-3009 `transferWithAuthorization` /
        `receiveWithAuthorization` / `cancelAuthorization`. The EIP-712 domain is
        ("USD Coin", "2", chain id, this contract), as on the real token, so signatures made
        for USDC by ordinary wallets and SDKs verify here unchanged.
"""

from ethereum.ercs import IERC20

implements: IERC20

event Transfer:
    sender: indexed(address)
    receiver: indexed(address)
    value: uint256

event Approval:
    owner: indexed(address)
    spender: indexed(address)
    value: uint256

event AuthorizationUsed:
    authorizer: indexed(address)
    nonce: indexed(bytes32)

event AuthorizationCanceled:
    authorizer: indexed(address)
    nonce: indexed(bytes32)

event OwnershipTransferred:
    previous_owner: indexed(address)
    new_owner: indexed(address)

name: public(constant(String[8])) = "USD Coin"
symbol: public(constant(String[4])) = "USDC"
decimals: public(constant(uint8)) = 6
version: public(constant(String[1])) = "2"

balanceOf: public(HashMap[address, uint256])
allowance: public(HashMap[address, HashMap[address, uint256]])
totalSupply: public(uint256)
owner: public(address)

# EIP-2612: one sequential nonce per owner.
nonces: public(HashMap[address, uint256])
# EIP-3009: random 32-byte nonces, each usable once per authorizer.
authorizationState: public(HashMap[address, HashMap[bytes32, bool]])

EIP712_DOMAIN_TYPEHASH: constant(bytes32) = keccak256(
    "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
)
PERMIT_TYPEHASH: public(constant(bytes32)) = keccak256(
    "Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)"
)
TRANSFER_WITH_AUTHORIZATION_TYPEHASH: public(constant(bytes32)) = keccak256(
    "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
)
RECEIVE_WITH_AUTHORIZATION_TYPEHASH: public(constant(bytes32)) = keccak256(
    "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
)
CANCEL_AUTHORIZATION_TYPEHASH: public(constant(bytes32)) = keccak256(
    "CancelAuthorization(address authorizer,bytes32 nonce)"
)
# secp256k1 n / 2 (0x7FFF...5D576E7357A4501DDFE92F46681B20A0): signatures with s above it
# are malleable copies of valid ones (EIP-2).
SECP256K1_HALF_N: constant(uint256) = (
    57896044618658097711785492504343953926418782139537452191302581570759080747168
)


# External parameter names follow USDC's ABI where Vyper allows (`from` and `value` are
# reserved: `from_`, `amount`); only the selectors matter to callers.


@deploy
def __init__():
    self.owner = msg.sender
    log OwnershipTransferred(previous_owner=empty(address), new_owner=msg.sender)


@view
@external
def DOMAIN_SEPARATOR() -> bytes32:
    return self._domain_separator()


@external
def transfer(to: address, amount: uint256) -> bool:
    self._transfer(msg.sender, to, amount)
    return True


@external
def transferFrom(from_: address, to: address, amount: uint256) -> bool:
    allowed: uint256 = self.allowance[from_][msg.sender]
    if allowed != max_value(uint256):
        assert allowed >= amount, "ERC20: insufficient allowance"
        self.allowance[from_][msg.sender] = allowed - amount
    self._transfer(from_, to, amount)
    return True


@external
def approve(spender: address, amount: uint256) -> bool:
    self._approve(msg.sender, spender, amount)
    return True


@external
def mint(receiver: address, amount: uint256) -> bool:
    assert msg.sender == self.owner, "USDC: caller is not the owner"
    assert receiver != empty(address), "ERC20: mint to the zero address"
    self.totalSupply += amount
    self.balanceOf[receiver] += amount
    log Transfer(sender=empty(address), receiver=receiver, value=amount)
    return True


@external
def transferOwnership(new_owner: address):
    assert msg.sender == self.owner, "USDC: caller is not the owner"
    assert new_owner != empty(address), "USDC: new owner is the zero address"
    log OwnershipTransferred(previous_owner=self.owner, new_owner=new_owner)
    self.owner = new_owner


@external
def permit(
    owner: address,
    spender: address,
    amount: uint256,
    deadline: uint256,
    v: uint8,
    r: bytes32,
    s: bytes32,
):
    assert deadline >= block.timestamp, "EIP2612: permit is expired"
    nonce: uint256 = self.nonces[owner]
    struct_hash: bytes32 = keccak256(
        abi_encode(PERMIT_TYPEHASH, owner, spender, amount, nonce, deadline)
    )
    assert self._recover(struct_hash, v, r, s) == owner, "EIP2612: invalid signature"
    self.nonces[owner] = nonce + 1
    self._approve(owner, spender, amount)


@external
def transferWithAuthorization(
    from_: address,
    to: address,
    amount: uint256,
    validAfter: uint256,
    validBefore: uint256,
    nonce: bytes32,
    v: uint8,
    r: bytes32,
    s: bytes32,
):
    self._use_authorization(
        TRANSFER_WITH_AUTHORIZATION_TYPEHASH,
        from_,
        to,
        amount,
        validAfter,
        validBefore,
        nonce,
        v,
        r,
        s,
    )
    self._transfer(from_, to, amount)


@external
def receiveWithAuthorization(
    from_: address,
    to: address,
    amount: uint256,
    validAfter: uint256,
    validBefore: uint256,
    nonce: bytes32,
    v: uint8,
    r: bytes32,
    s: bytes32,
):
    # Only the payee may submit, so a front-runner cannot consume the authorization elsewhere.
    assert to == msg.sender, "FiatTokenV2: caller must be the payee"
    self._use_authorization(
        RECEIVE_WITH_AUTHORIZATION_TYPEHASH,
        from_,
        to,
        amount,
        validAfter,
        validBefore,
        nonce,
        v,
        r,
        s,
    )
    self._transfer(from_, to, amount)


@external
def cancelAuthorization(authorizer: address, nonce: bytes32, v: uint8, r: bytes32, s: bytes32):
    assert not self.authorizationState[authorizer][nonce], "FiatTokenV2: authorization is used or canceled"
    struct_hash: bytes32 = keccak256(abi_encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce))
    assert self._recover(struct_hash, v, r, s) == authorizer, "FiatTokenV2: invalid signature"
    self.authorizationState[authorizer][nonce] = True
    log AuthorizationCanceled(authorizer=authorizer, nonce=nonce)


@view
@internal
def _domain_separator() -> bytes32:
    # Computed per call so the separator follows the chain id the node reports.
    return keccak256(
        abi_encode(
            EIP712_DOMAIN_TYPEHASH,
            keccak256("USD Coin"),
            keccak256("2"),
            chain.id,
            self,
        )
    )


@view
@internal
def _recover(struct_hash: bytes32, v: uint8, r: bytes32, s: bytes32) -> address:
    assert convert(s, uint256) <= SECP256K1_HALF_N, "ECRecover: invalid signature 's' value"
    assert v == 27 or v == 28, "ECRecover: invalid signature 'v' value"
    digest: bytes32 = keccak256(concat(b"\x19\x01", self._domain_separator(), struct_hash))
    signer: address = ecrecover(digest, v, r, s)
    assert signer != empty(address), "ECRecover: invalid signature"
    return signer


@internal
def _use_authorization(
    typehash: bytes32,
    from_: address,
    to: address,
    amount: uint256,
    valid_after: uint256,
    valid_before: uint256,
    nonce: bytes32,
    v: uint8,
    r: bytes32,
    s: bytes32,
):
    assert block.timestamp > valid_after, "FiatTokenV2: authorization is not yet valid"
    assert block.timestamp < valid_before, "FiatTokenV2: authorization is expired"
    assert not self.authorizationState[from_][nonce], "FiatTokenV2: authorization is used or canceled"
    struct_hash: bytes32 = keccak256(
        abi_encode(typehash, from_, to, amount, valid_after, valid_before, nonce)
    )
    assert self._recover(struct_hash, v, r, s) == from_, "FiatTokenV2: invalid signature"
    self.authorizationState[from_][nonce] = True
    log AuthorizationUsed(authorizer=from_, nonce=nonce)


@internal
def _transfer(sender: address, receiver: address, amount: uint256):
    assert sender != empty(address), "ERC20: transfer from the zero address"
    assert receiver != empty(address), "ERC20: transfer to the zero address"
    balance: uint256 = self.balanceOf[sender]
    assert balance >= amount, "ERC20: transfer amount exceeds balance"
    self.balanceOf[sender] = balance - amount
    self.balanceOf[receiver] += amount
    log Transfer(sender=sender, receiver=receiver, value=amount)


@internal
def _approve(owner: address, spender: address, amount: uint256):
    assert owner != empty(address), "ERC20: approve from the zero address"
    assert spender != empty(address), "ERC20: approve to the zero address"
    self.allowance[owner][spender] = amount
    log Approval(owner=owner, spender=spender, value=amount)
