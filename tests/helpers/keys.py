"""anvil's (and hardhat's) well-known dev accounts #0, #1, #2 (mnemonic "test test ... junk"):
publicly known, funded at an anvil start and in the demo world, never real money. The one place
a test takes a private key from."""

DEV_KEYS = (
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
)
