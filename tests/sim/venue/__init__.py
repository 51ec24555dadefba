"""The world's venue (crossdeck.sim.venue) on its own: ledger, /info and /exchange."""
