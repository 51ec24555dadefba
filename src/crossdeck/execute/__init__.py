"""crossdeck.execute"""
