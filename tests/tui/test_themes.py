"""Theme files: the shipped ones, validation, user themes, fallbacks, and where they load from."""

from __future__ import annotations

from pathlib import Path

import pytest

from crossdeck.tui import themes
from crossdeck.tui.themes import (
    DEFAULT_THEME,
    builtin_theme_dir,
    choose_theme,
    load_all_themes,
    load_theme_dir,
    load_theme_file,
)

REPO_THEMES = Path(__file__).resolve().parents[2] / "themes"
GOOD = 'name = "mine"\nprimary = "#112233"\n'


def test_at_least_three_shipped_themes_one_high_contrast_all_valid() -> None:
    catalog = load_theme_dir(REPO_THEMES)
    assert catalog.warnings == []
    assert {"crossdeck-dark", "crossdeck-light", "crossdeck-high-contrast"} <= set(catalog.themes)
    assert catalog.themes["crossdeck-light"].dark is False
    contrast = catalog.themes["crossdeck-high-contrast"]
    assert (contrast.foreground, contrast.background) == ("#ffffff", "#000000")
    assert DEFAULT_THEME in catalog.themes


def test_source_checkout_loads_the_repository_folder() -> None:
    assert builtin_theme_dir() == REPO_THEMES


def test_installed_package_data_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "crossdeck"
    (package / "_themes").mkdir(parents=True)
    (package / "_themes" / "packaged.toml").write_text('name = "packaged"\nprimary = "red"\n')
    monkeypatch.setattr(themes.resources, "files", lambda name: package)
    assert builtin_theme_dir() == package / "_themes"
    assert "packaged" in load_all_themes(tmp_path / "no-user-themes").themes


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('name = "x"\nprimary = "#12345"\n', "primary: '#12345' is not a colour"),
        ('name = "x"\n', "primary: is required"),
        ('name = "Bad Name"\nprimary = "red"\n', "name: 'Bad Name' must be lowercase"),
        ('name = "x"\nprimary = "red"\ncolour = "blue"\n', "colour: is not a known key"),
        ('name = "x"\nprimary = "red"\n[variables]\nborderr = "red"\n', "'borderr' is not a theme"),
        ('name = "x"\nprimary = "red"\n[variables]\nborder = "nope"\n', "is not a colour"),
        ('name = "x"\nprimary = "red"\nluminosity_spread = 3\n', "luminosity_spread"),
        ("name = \n", "not valid TOML"),
    ],
)
def test_a_bad_theme_file_is_skipped_with_the_reason(
    tmp_path: Path, text: str, problem: str
) -> None:
    (tmp_path / "bad.toml").write_text(text)
    (tmp_path / "good.toml").write_text(GOOD)
    catalog = load_theme_dir(tmp_path)
    assert list(catalog.themes) == ["mine"]
    assert len(catalog.warnings) == 1
    assert catalog.warnings[0].startswith("theme file bad.toml skipped: ")
    assert problem in catalog.warnings[0], catalog.warnings[0]


def test_yaml_without_pyyaml_says_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("name: t\nprimary: red\n")
    try:
        import yaml  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="PyYAML"):
            load_theme_file(path)
    else:
        assert load_theme_file(path).name == "t"


def test_user_themes_add_and_override(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text(GOOD)
    (tmp_path / "dark.toml").write_text('name = "crossdeck-dark"\nprimary = "#ff0000"\n')
    catalog = load_all_themes(tmp_path)
    assert "mine" in catalog.themes and "crossdeck-light" in catalog.themes
    assert catalog.themes["crossdeck-dark"].primary == "#ff0000"
    assert catalog.sources["crossdeck-dark"] == tmp_path / "dark.toml"


def test_choose_theme_prefers_remembered_then_config_then_default() -> None:
    available = {"crossdeck-dark", "crossdeck-light", "textual-dark"}
    assert choose_theme(available, "crossdeck-light", "crossdeck-dark") == ("crossdeck-light", None)
    assert choose_theme(available, None, "crossdeck-light") == ("crossdeck-light", None)
    name, warning = choose_theme(available, None, "gone")
    assert name == "crossdeck-dark" and warning is not None and "'gone'" in warning
    assert choose_theme({"textual-dark"}, None, "crossdeck-dark")[0] == "textual-dark"
