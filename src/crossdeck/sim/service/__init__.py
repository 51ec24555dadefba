"""The transfer service of the demo world (server side of service-api.md).

Modules: ``state`` (SQLite state + lifecycle the solver drives), ``quotes`` (quote engine),
``app`` (aiohttp application), ``faults`` (fault injection), ``ratelimit``.
"""
