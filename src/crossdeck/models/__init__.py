"""crossdeck.models"""
