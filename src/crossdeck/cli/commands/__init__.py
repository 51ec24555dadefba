"""Command modules, one per job; each exposes `commands`."""
