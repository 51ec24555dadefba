"""Values the config tests share."""

from helpers.keys import DEV_KEYS

DEMO_KEY = DEV_KEYS[0]
DEMO_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
DEMO_API_KEY = "demo-api-key-7c4f1e"
