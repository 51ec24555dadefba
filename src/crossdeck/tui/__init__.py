"""crossdeck.tui"""
