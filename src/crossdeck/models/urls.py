"""Where a URL points, for messages and output: only its scheme, host and port.

An RPC URL often carries an API key: in its path (`/v2/<key>`), its query (`?apikey=`) or its
user info (`https://user:key@host`). What crossdeck prints, logs or shows of such a URL is this
short form, so the key never reaches a screen, a log or a script's JSON.
"""

from __future__ import annotations

from urllib.parse import urlsplit


def url_where(url: str) -> str:
    """'https://host:port' of `url`: no user info, path, query or fragment. A URL that does not
    parse to a scheme and a host reads '(an unreadable URL)', never the text itself, which
    could be a key pasted in the wrong place."""
    try:
        parts = urlsplit(url.strip())
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number, a malformed IPv6 host
        return "(an unreadable URL)"
    if not parts.scheme or not host:
        return "(an unreadable URL)"
    shown = f"[{host}]" if ":" in host else host  # an IPv6 literal keeps its brackets
    return f"{parts.scheme}://{shown}" + (f":{port}" if port is not None else "")
