"""crossdeck.api"""
