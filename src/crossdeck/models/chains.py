"""GET /chains (facts: 'Other endpoints')."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field

from crossdeck.models.addresses import Family, family_of
from crossdeck.models.base import WireModel, new_list
from crossdeck.models.constants import (  # re-exported: the chains' own constants
    NATIVE_ADDRESS as NATIVE_ADDRESS,
)
from crossdeck.models.constants import NATIVE_DECIMALS as NATIVE_DECIMALS
from crossdeck.models.constants import VENUE_CHAIN_ID as VENUE_CHAIN_ID
from crossdeck.models.constants import ZERO_ADDRESS as ZERO_ADDRESS


class ChainCurrency(WireModel):
    id: str | None = None
    symbol: str | None = None
    name: str | None = None
    address: str | None = None
    decimals: int | None = None
    supports_bridging: bool | None = None


class ChainProtocolV2(WireModel):
    # the protocol's NAME of the chain ("base", "hyperliquid"), as in paymentDetails.chainId
    chain_id: str | int | None = None
    depository: str | None = None


class ChainProtocol(WireModel):
    v2: ChainProtocolV2 | None = None


_VERSION_KEY = re.compile(r"^v\d+(?:\.\d+)*\.")
_ROLE_NAMES = {"erc20Router": "router", "approvalProxy": "approval proxy"}


def contract_role_words(role: str) -> str:
    """A /chains `contracts` role in words: 'v3.2.approvalProxy' (under the key "v3.2") is the
    router 3.2 approval proxy, 'v3.erc20Router' the v3 router, 'erc20Router' the router; a
    role it has no words for stays as named ('multicall3')."""
    found = _VERSION_KEY.match(role)
    name = role[found.end() :] if found else role
    what = _ROLE_NAMES.get(name)
    if what is None:
        return role
    if found is None:
        return f"{what} ({role})"
    version = found.group(0)[1:-1]
    words = f"router {version}" if name == "erc20Router" else f"router {version} {what}"
    return f"{words} ({role})"


class ChainInfo(WireModel):
    id: int | None = None
    name: str | None = None
    display_name: str | None = None
    http_rpc_url: str | None = None
    explorer_url: str | None = None
    explorer_paths: dict[str, str] | None = None
    deposit_enabled: bool | None = None
    disabled: bool | None = None
    block_production_lagging: bool | None = None
    currency: ChainCurrency | None = None
    erc20_currencies: list[ChainCurrency] | None = None
    solver_currencies: list[ChainCurrency] | None = None
    vm_type: str | None = None
    protocol: ChainProtocol | None = None
    # the service's helper contracts on this chain by role (public answers nest some, e.g.
    # {"v3": {"erc20Router": ...}}), and the addresses its solver fills from
    contracts: dict[str, Any] | None = None
    solver_addresses: list[str] | None = None

    @property
    def depository(self) -> str | None:
        v2 = self.protocol.v2 if self.protocol else None
        return v2.depository if v2 else None

    def contract_addresses(self) -> dict[str, str]:
        """Every address `contracts` names, lower-cased, with its role in words ('router 3.2
        approval proxy (v3.2.approvalProxy)'): a versioned role where it has one, so the top
        level pair, which names the current version's contracts again, reads as that
        version (`contract_role_words`)."""
        named = {}
        for address, roles in self.contract_roles().items():
            versioned = [r for r in roles if _VERSION_KEY.match(r)]
            named[address] = contract_role_words((versioned or roles)[0])
        return named

    def contract_roles(self) -> dict[str, list[str]]:
        """Every address `contracts` names, lower-cased, with every role it is named under (an
        address named twice, say as a router and as Multicall3, is both)."""
        found: dict[str, list[str]] = {}

        def walk(value: Any, role: str) -> None:
            if isinstance(value, str):
                found.setdefault(value.lower(), []).append(role)
            elif isinstance(value, dict):
                for key, inner in value.items():
                    walk(inner, f"{role}.{key}" if role else str(key))

        walk(self.contracts or {}, "")
        return found

    @property
    def protocol_chain_name(self) -> str | None:
        """The name the protocol uses for this chain (`protocol.v2.chainId`), if given."""
        v2 = self.protocol.v2 if self.protocol else None
        name = v2.chain_id if v2 else None
        return str(name) if name is not None and not isinstance(name, bool) else None

    @property
    def currencies(self) -> list[ChainCurrency]:
        """Native currency first, then ERC-20 and solver currencies, without duplicates."""
        seen: set[str] = set()
        out: list[ChainCurrency] = []
        pool = [self.currency] if self.currency else []
        pool += (self.erc20_currencies or []) + (self.solver_currencies or [])
        for cur in pool:
            key = (cur.address or cur.id or cur.symbol or "").lower()
            if key in seen:
                continue
            seen.add(key)
            out.append(cur)
        return out

    def find_currency(self, address: str) -> ChainCurrency | None:
        """The listed currency at `address` (a Solana mint matched in its case, an EVM
        address in any)."""
        from crossdeck.models.addresses import same_address

        return next((c for c in self.currencies if same_address(c.address, address)), None)


class ChainsResponse(WireModel):
    chains: list[ChainInfo] = Field(default_factory=new_list)

    def by_id(self, chain_id: int) -> ChainInfo | None:
        return next((c for c in self.chains if c.id == chain_id), None)

    def vm_types(self) -> dict[int, str]:
        """The vmType of each listed chain that states one (it decides the family of the
        chain's addresses: `addresses.family_of`)."""
        return {c.id: c.vm_type for c in self.chains if c.id is not None and c.vm_type}

    def family(self, chain_id: int) -> Family:
        """`chain_id`'s family: its vmType, else what is publicly known (`family_of`)."""
        chain = self.by_id(chain_id)
        return family_of(chain_id, chain.vm_type if chain is not None else None)

    @property
    def venue(self) -> ChainInfo | None:
        return self.by_id(VENUE_CHAIN_ID)

    def by_protocol_name(self, name: str) -> ChainInfo | None:
        """The chain the protocol calls `name` (paymentDetails.chainId): matched against each
        chain's `protocol.v2.chainId`, case-insensitively. A digit string is the numeric id
        (older answers and the contract's seed send the id itself)."""
        wanted = name.strip().lower()
        found = next(
            (c for c in self.chains if (c.protocol_chain_name or "").lower() == wanted), None
        )
        if found is None and wanted.isdigit():
            found = self.by_id(int(wanted))
        return found
