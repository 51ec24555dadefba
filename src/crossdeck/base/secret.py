"""`Secret`: a string that never prints itself (keys, passwords, API keys, page tokens).

crossdeck's one secret type, from the settings (a world file's keys) through the keyring and
the keystores to the clients that sign or authenticate with it. Only `get_secret_value()` reads
it; `repr`, `str` and f-strings show `**********`, so a secret that reaches a log line, an error
or a traceback's locals shows nothing. Our own (it replaces pydantic's `SecretStr`)
so that reading the settings, which every start does, imports no validation library.
"""

from __future__ import annotations

from typing import Final, NoReturn

MASK: Final = "**********"


class Secret:
    """A secret string. Equal to another `Secret` of the same value; never equal to a str."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"a Secret holds a str, not {type(value).__name__}")
        self._value = value

    def get_secret_value(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"Secret('{MASK}')"

    def __str__(self) -> str:
        return MASK

    def __len__(self) -> int:  # an empty secret is falsy, as an empty str is
        return len(self._value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return self._value == other._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __copy__(self) -> Secret:  # immutable: a copy is itself
        return self

    def __deepcopy__(self, memo: object) -> Secret:
        return self

    def __reduce__(self) -> NoReturn:  # pickling would write the value out: refused
        raise TypeError("a Secret is not pickled")
