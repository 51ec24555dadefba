"""The base layer: what every other crossdeck package may import, and which imports none of them.

Error classes and their exit codes, the one TLS context, the nesting check of JSON from outside,
the one SQLite write transaction, the one Keccak-256, the secret string, the settings' validator,
the first-use name loader, and the two start-up helpers `crossdeck/__init__.py` runs first
(the collector's hold and eth-account's trimmed import). Nothing here is imported by this
`__init__`: each module loads on first use, so the start path pays only for what it reads.
"""
