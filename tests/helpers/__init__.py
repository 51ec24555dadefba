"""The one set of helpers every test folder shares (the root conftest.py puts `tests/` on the
import path, so any test imports them as `helpers.<module>`):

- `servers.start_app`: an aiohttp app on 127.0.0.1, port 0 unless given;
- `waiting.wait_until`: poll a condition until it holds, failing with what was awaited (the
  app's tests run it through their pilot); `waiting.SleepRecorder` for retry policies;
- `fault_proxy.FaultProxy`: a forwarding proxy in front of the world's service or venue that
  records what clients sent and answers queued faults in the world's place;
- `keys.DEV_KEYS`: anvil's public dev keys;
- `typed_data`: the spec's EIP-712 field lists (domain, SendAsset, NonceMapping);
- `webhook_signing`: webhook signatures by the hmac module alone (spec 6.3).

A folder's own support module (tui_support, execute_support, ...) holds what only it uses.
"""
