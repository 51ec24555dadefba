"""crossdeck.wallet"""
