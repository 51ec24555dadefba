"""By-hand end-to-end tests of the demo world (httpx + eth-account only)."""
