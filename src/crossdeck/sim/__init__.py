"""crossdeck.sim"""
