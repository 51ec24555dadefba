"""The world's webhook sender (crossdeck.sim.webhooks): payloads, signatures, retries."""
