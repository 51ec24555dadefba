"""crossdeck.venue"""
