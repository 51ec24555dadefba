"""Reads made at once, each answer taken in the order the reads would have been made one by one."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def answer(value: T | BaseException) -> T:
    """One result of `asyncio.gather(..., return_exceptions=True)`: the value, or its error
    raised here, where the read made alone would have raised it (so a refusal checked between
    two reads still comes before the second read's error)."""
    if isinstance(value, BaseException):
        raise value
    return value
