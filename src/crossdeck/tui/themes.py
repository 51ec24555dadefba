"""Theme files: TOML (or YAML, when PyYAML is installed) in `themes/`, validated, then registered.

Built-in themes ship in the wheel as `crossdeck/_themes` (the pyproject force-includes the
repository's top-level `themes/` there); in a source checkout they are read from `themes/`
itself. Users add their own in `<config dir>/themes/` (beside the config file); a user theme
with a built-in's name replaces it.

A theme file that cannot be read or fails validation is skipped with a warning: the app shows
the warnings as notifications and falls back to the default theme when the chosen one is bad.
Validation is the settings' own (`crossdeck.base.settings_schema`), not pydantic: the themes
are read before the app's first frame.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

from crossdeck.base.settings_schema import SettingsError, parse, setting

DEFAULT_THEME = "crossdeck-dark"
FALLBACK_THEME = "textual-dark"  # Textual's own, always registered
THEME_SUFFIXES = (".toml", ".yaml", ".yml")

_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,47}$")
_VARIABLE_REF = re.compile(r"^\$[a-z][a-z0-9-]*(?: \d{1,3}%)?$")
_TEXT_STYLE_WORDS = frozenset(
    {"none", "bold", "italic", "underline", "reverse", "strike", "dim", "not", "b", "i", "u"}
)
_SOURCE_THEMES = Path(__file__).resolve().parents[3] / "themes"


def _colour(value: str) -> str:
    try:
        Color.parse(value)
    except ColorParseError as exc:
        raise ValueError(f"{value!r} is not a colour ({exc})") from None
    return value


Colour = Annotated[str, _colour]


def _slug(value: str) -> str:
    if not _NAME.fullmatch(value):
        raise ValueError(f"{value!r} must be lowercase letters, digits and '-' (e.g. 'my-dark')")
    return value


def _variables(value: dict[str, str]) -> dict[str, str]:
    for name, text in value.items():
        _check_variable(name, text)
    return value


@cache
def known_variables() -> frozenset[str]:
    """The CSS variables a theme may set: those Textual's colour system defines."""
    generated = Theme(name="probe", primary="#000000").to_color_system().generate()
    return frozenset(generated)


def _check_variable(name: str, value: str) -> None:
    if name not in known_variables():
        raise ValueError(f"variables: {name!r} is not a theme variable Textual knows")
    text = value.strip()
    if name.endswith("text-style") or name.endswith("-style"):
        if text and all(word in _TEXT_STYLE_WORDS for word in text.split()):
            return
        raise ValueError(f"variables.{name}: {value!r} is not a text style (e.g. 'bold')")
    if _VARIABLE_REF.fullmatch(text):
        return
    colour, _, alpha = text.partition(" ")
    if alpha and not re.fullmatch(r"\d{1,3}%", alpha):
        raise ValueError(f"variables.{name}: {value!r} is not 'COLOUR' or 'COLOUR NN%'")
    try:
        Color.parse(colour)
    except ColorParseError:
        raise ValueError(f"variables.{name}: {value!r} is not a colour") from None


@dataclass(frozen=True, kw_only=True, slots=True)
class ThemeFile:
    """One theme file. Colours are anything Textual parses (#rgb, #rrggbb, rgb(), names)."""

    name: Annotated[str, _slug]
    description: str = ""
    author: str | None = None
    dark: bool = True
    primary: Colour
    secondary: Colour | None = None
    accent: Colour | None = None
    warning: Colour | None = None
    error: Colour | None = None
    success: Colour | None = None
    foreground: Colour | None = None
    background: Colour | None = None
    surface: Colour | None = None
    panel: Colour | None = None
    boost: Colour | None = None
    luminosity_spread: float = setting(0.15, ge=0.0, le=1.0)
    text_alpha: float = setting(0.95, ge=0.0, le=1.0)
    variables: Annotated[dict[str, str], _variables] = field(default_factory=dict)

    def to_theme(self) -> Theme:
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        del fields["description"], fields["author"]
        theme = Theme(**fields)
        theme.to_color_system().generate()  # a colour system that cannot be built fails here
        return theme


@dataclass
class ThemeCatalog:
    """Themes that loaded (by name), where each came from, and a warning per file that did not."""

    themes: dict[str, Theme] = field(default_factory=dict)
    descriptions: dict[str, str] = field(default_factory=dict)
    sources: dict[str, Path] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def add(self, other: ThemeCatalog) -> None:
        self.themes.update(other.themes)
        self.descriptions.update(other.descriptions)
        self.sources.update(other.sources)
        self.warnings.extend(other.warnings)


def builtin_theme_dir() -> Path | None:
    """The shipped themes: package data when installed, the repository folder in a checkout."""
    try:
        packaged = resources.files("crossdeck") / "_themes"
        if packaged.is_dir():
            return Path(str(packaged))
    except (ModuleNotFoundError, TypeError):  # pragma: no cover - odd importers
        pass
    return _SOURCE_THEMES if _SOURCE_THEMES.is_dir() else None


def user_theme_dir() -> Path:
    """`themes/` beside the config file in use (so CROSSDECK_CONFIG moves it too)."""
    from crossdeck.config import config_file_path

    return config_file_path().parent / "themes"


def _read(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        return tomllib.loads(text)
    try:
        import yaml
    except ImportError:
        raise ValueError("YAML themes need PyYAML (pip install pyyaml); use TOML") from None
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise ValueError("the file must hold a mapping of theme fields")
    return data


def _problem(exc: Exception) -> str:
    if isinstance(exc, SettingsError):
        return exc.summary(root="(file)")
    if isinstance(exc, tomllib.TOMLDecodeError):
        return f"not valid TOML: {exc}"
    if isinstance(exc, OSError):
        return f"cannot be read: {exc.strerror or exc}"
    return str(exc)


def load_theme_file(path: Path) -> ThemeFile:
    """Parse and validate one file; raises ValueError with a readable reason."""
    try:
        return parse(ThemeFile, _read(path))
    except (SettingsError, tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
        raise ValueError(_problem(exc)) from None


def load_theme_dir(directory: Path | None) -> ThemeCatalog:
    """Every theme file of a directory (a missing directory holds none)."""
    catalog = ThemeCatalog()
    if directory is None or not directory.is_dir():
        return catalog
    for path in sorted(directory.iterdir()):
        if path.suffix not in THEME_SUFFIXES or not path.is_file():
            continue
        try:
            parsed = load_theme_file(path)
            theme = parsed.to_theme()
        except ValueError as exc:
            catalog.warnings.append(f"theme file {path.name} skipped: {exc}")
            continue
        except Exception as exc:  # a colour system Textual refuses to build
            catalog.warnings.append(f"theme file {path.name} skipped: {exc}")
            continue
        catalog.themes[theme.name] = theme
        catalog.descriptions[theme.name] = parsed.description
        catalog.sources[theme.name] = path
    return catalog


def load_all_themes(user_dir: Path | None = None) -> ThemeCatalog:
    """Built-in themes, then the user's (which win on equal names)."""
    catalog = load_theme_dir(builtin_theme_dir())
    catalog.add(load_theme_dir(user_dir if user_dir is not None else user_theme_dir()))
    return catalog


def choose_theme(
    available: set[str] | dict[str, Any], remembered: str | None, configured: str | None
) -> tuple[str, str | None]:
    """The theme to start with and a warning when a wanted one is not available.

    The remembered choice (last picked in the app) wins over the config's `theme`; a name that
    did not load falls back to the default theme, else Textual's own."""
    for wanted in (remembered, configured):
        if wanted and wanted in available:
            return wanted, None
    missing = remembered or configured
    fallback = DEFAULT_THEME if DEFAULT_THEME in available else FALLBACK_THEME
    warning = None
    if missing and missing != fallback:
        warning = f"theme {missing!r} is not available (see earlier warnings); using {fallback}"
    return fallback, warning
