"""Values the config tests share."""

DEMO_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
DEMO_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
DEMO_API_KEY = "demo-api-key-7c4f1e"
