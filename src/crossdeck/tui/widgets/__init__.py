"""Widgets of the crossdeck app."""
