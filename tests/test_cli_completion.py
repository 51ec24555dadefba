"""`crossdeck completion bash|zsh|fish`: click's completion scripts, and completions that work
through them (in process with the runner, and in a real bash through the installed script)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from crossdeck.cli import COMMANDS, main

CROSSDECK = Path(sys.executable).with_name("crossdeck")  # the installed console script


def complete(words: str, shell: str = "bash") -> list[str]:
    """What the shell's script would get back for the command line `words` (cursor at its end)."""
    cword = len(words.split()) - (0 if words.endswith(" ") else 1)
    env = {
        "_CROSSDECK_COMPLETE": f"{shell}_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(cword),
    }
    result = CliRunner().invoke(main, [], env=env, prog_name="crossdeck")
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


@pytest.mark.parametrize(
    ("shell", "marker"),
    [
        ("bash", "complete -o nosort -F _crossdeck_completion crossdeck"),
        ("zsh", "compdef _crossdeck_completion crossdeck"),
        ("fish", "complete --no-files --command crossdeck"),
    ],
)
def test_each_shell_gets_its_script(shell: str, marker: str) -> None:
    result = CliRunner().invoke(main, ["completion", shell])
    assert result.exit_code == 0, result.output
    assert "_CROSSDECK_COMPLETE" in result.stdout
    assert f"{shell}_complete" in result.stdout
    assert marker in result.stdout


def test_an_unknown_shell_is_a_usage_error_naming_the_three() -> None:
    result = CliRunner().invoke(main, ["completion", "tcsh"])
    assert result.exit_code == 2
    assert "'tcsh' is not one of 'bash', 'zsh', 'fish'" in result.stderr
    assert result.stdout == ""


def test_completing_st_offers_status() -> None:
    assert complete("crossdeck st") == ["plain,status"]


def test_completing_lists_every_command_with_its_summary_and_subcommands() -> None:
    assert complete("crossdeck ") == [f"plain,{name}" for name in sorted(COMMANDS)]
    zsh = complete("crossdeck sta", shell="zsh")
    assert zsh == ["plain", "status", COMMANDS["status"].summary]
    assert "plain,show" in complete("crossdeck config s")
    assert "plain,--json" in complete("crossdeck --j")


def test_completing_a_command_name_imports_no_command_module() -> None:
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from crossdeck.cli import main\n"
        "env = {'_CROSSDECK_COMPLETE': 'zsh_complete', 'COMP_WORDS': 'crossdeck ', "
        "'COMP_CWORD': '1'}\n"
        "result = CliRunner().invoke(main, [], env=env, prog_name='crossdeck')\n"
        "assert result.exit_code == 0 and 'webhook' in result.stdout, result.output\n"
        "print(sorted(m for m in sys.modules if m.startswith('crossdeck.cli.commands.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_bash_script_completes_in_a_real_bash() -> None:
    script = (
        "source <(crossdeck completion bash)\n"
        "COMP_WORDS=(crossdeck st); COMP_CWORD=1\n"
        "_crossdeck_completion crossdeck\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = {**os.environ, "PATH": f"{CROSSDECK.parent}{os.pathsep}{os.environ['PATH']}"}
    out = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script],
        capture_output=True, text=True, env=env, timeout=60, check=True,
    )  # fmt: skip
    assert out.stdout.split() == ["status"]
