"""Settings: the profile in use, its URLs and RPCs, the wallet, whether an API key is set (never
the key), the signing chain id, the theme (picked here, remembered across runs) and the signer
(picked here for this session: the keyring key, a Foundry keystore, the browser wallet or a
read-only address, as the global options `--account`, `--keystore`, `--browser` and `--from`
pick it at start)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from crossdeck.base.errors import CrossdeckError
from crossdeck.tui.screens.base import ModeScreen
from crossdeck.tui.widgets.picker import Picker

SIGNER_CHOICES = [
    ("keyring (or world) key", "keyring"),
    ("Foundry keystore", "keystore"),
    ("browser wallet", "browser"),
    ("read-only address", "read-only"),
]
SIGNER_VALUE_HINTS = {
    "keystore": "keystore name in ~/.foundry/keystores, or a path",
    "read-only": "the 0x address to watch",
}


def signer_choice(kind: str, value: str) -> dict[str, object]:
    """The signer settings section the Settings form describes (ValueError says what is
    missing); a keystore is a name in ~/.foundry/keystores or, with a slash, a path."""
    if kind == "keyring":
        return {}
    if kind == "browser":
        return {"kind": "browser"}
    if not value:
        raise ValueError(f"the {kind} signer needs {SIGNER_VALUE_HINTS[kind]}")
    if kind == "read-only":
        from crossdeck.models.addresses import checksum_problem

        problem = checksum_problem(value)
        if problem is not None or len(value) != 42 or not value.startswith("0x"):
            raise ValueError(problem or f"{value} is not an EVM address ('0x' and 40 hex digits)")
        return {"kind": "read-only", "address": value}
    if "/" in value or value.startswith("~"):
        return {"kind": "keystore", "keystore": value}
    return {"kind": "keystore", "account": value}


class SettingsScreen(ModeScreen):
    MODE = "settings"
    BINDINGS: ClassVar = [
        Binding(
            "t",
            "focus_theme",
            "Theme",
            id="settings.theme",
            tooltip="Move to the theme picker (the choice is remembered for the next start)",
        ),
    ]

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="settings-body"):
            yield Static(id="settings-table")
            with Horizontal(id="theme-row"):
                yield Label("Theme ", id="theme-label")
                yield Picker[str](
                    self._theme_options(),
                    value=self.app.theme,
                    id="theme-select",
                    allow_blank=False,
                    prompt="theme",
                )
            with Horizontal(id="signer-row"):
                yield Label("Signer ", id="signer-label")
                yield Picker[str](
                    SIGNER_CHOICES,
                    value=self.crossdeck.services.signer_kind,
                    id="signer-select",
                    allow_blank=False,
                    prompt="signer",
                )
                yield Input(id="signer-value", compact=True)
                yield Button("Use", id="signer-use", compact=True)
            yield Static(id="settings-notes")

    def on_mount(self) -> None:
        self._signer_placeholder(self.crossdeck.services.signer_kind)
        self.refresh_settings()
        self.crossdeck.secrets_loaded.subscribe(self, lambda _: self.refresh_settings())
        self.watch(self.app, "theme", self._theme_changed, init=False)

    def _theme_changed(self, name: str) -> None:
        select = self.query_one("#theme-select", Picker)
        if select.value != name:
            select.value = name

    def on_screen_resume(self) -> None:
        self.refresh_settings()

    def _theme_options(self) -> list[tuple[str, str]]:
        app = self.crossdeck
        options = []
        for name in app.theme_names():
            description = app.theme_catalog.descriptions.get(name, "Textual built-in")
            options.append((f"{name} — {description}", name))
        return options

    def _signer_placeholder(self, kind: object) -> None:
        field = self.query_one("#signer-value", Input)
        field.placeholder = SIGNER_VALUE_HINTS.get(str(kind), "")
        field.disabled = kind in ("keyring", "browser")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "signer-use":
            self.use_signer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "signer-value":
            self.use_signer()

    @work(group="signer-choice", exclusive=True, exit_on_error=False)
    async def use_signer(self) -> None:
        kind = str(self.query_one("#signer-select", Picker).value)
        value = self.query_one("#signer-value", Input).value.strip()
        try:
            chosen = signer_choice(kind, value)
        except ValueError as exc:
            self.notify(str(exc), title="Signer", severity="error")
            return
        app = self.crossdeck
        try:
            await app.services.use_signer(chosen)
        except CrossdeckError as exc:  # e.g. no keystore at that path: the signer is kept
            self.notify(str(exc), title="Signer", severity="error")
            return
        app.refresh_sub_title()
        self.refresh_settings()
        self.notify(f"Signing with {app.services.signer_words}", title="Signer")
        if kind == "browser":
            app.connect_browser_wallet()

    def on_picker_changed(self, event: Picker.Changed) -> None:
        if event.control.id == "signer-select":
            self._signer_placeholder(event.value)
            return
        if event.control.id == "theme-select" and isinstance(event.value, str):
            if event.value != self.app.theme:
                self.app.theme = event.value

    def refresh_settings(self) -> None:
        app = self.crossdeck
        info = app.services.describe()
        settings = app.settings
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        table.add_row("Profile", info["profile"])
        table.add_row("Config file", str(app.config_path))
        if settings.world is not None:
            table.add_row("Demo world", str(settings.world.file))
        table.add_row("Service URL", info["service"])
        table.add_row("Venue URL", info["venue"])
        rpc = info["rpc"]
        if rpc:
            for chain_id in sorted(rpc):
                table.add_row(f"RPC {chain_id}", rpc[chain_id])
        else:
            table.add_row("RPCs", Text("none configured", style="italic"))
        table.add_row("Wallet address", info["wallet"])
        table.add_row("Signer", info["signer"])
        api_key = info["api_key"]
        style = "green" if api_key == "set" else "yellow"
        table.add_row("API key", Text(api_key, style=style))
        table.add_row("Signing chain id", str(info["signing_chain_id"]))
        table.add_row("Data dir", str(settings.data_dir))
        table.add_row(
            "Webhook receiver",
            f"{settings.webhook.host}:{settings.webhook.port or 'any'}{settings.webhook.path}",
        )
        table.add_row(
            "Status polling",
            f"every {settings.tracking.poll_interval_seconds:g}s "
            f"(up to {settings.tracking.poll_interval_cap_seconds:g}s)",
        )
        keymap = ", ".join(f"{k}={v}" for k, v in sorted(settings.keymap.items())) or "defaults"
        table.add_row("Keymap", keymap)
        self.query_one("#settings-table", Static).update(table)
        self.query_one("#settings-notes", Static).update(
            Text(
                "Change URLs, RPCs and the keymap in the config file (or CROSSDECK_* variables); "
                "secrets live in the keyring: `crossdeck wallet import`, `crossdeck apikey set`. "
                f"User themes: {app.user_theme_dir}",
                style="italic",
            )
        )

    def action_focus_theme(self) -> None:
        self.query_one("#theme-select", Picker).focus()

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Pick a theme", "Move to the theme picker", self.action_focus_theme)
