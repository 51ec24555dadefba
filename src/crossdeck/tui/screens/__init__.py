"""Screens of the crossdeck app: one per mode, plus the pushed and modal ones."""
