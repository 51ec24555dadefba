"""crossdeck.track"""
