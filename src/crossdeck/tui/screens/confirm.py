"""Confirm (placeholder until crossdeck.execute lands)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding
from textual.screen import ModalScreen


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS: ClassVar = [
        Binding("y", "sign", "Sign", id="confirm.sign", tooltip="Sign exactly this"),
        Binding("n,escape", "reject", "Reject", id="confirm.reject", tooltip="Do not sign"),
    ]
