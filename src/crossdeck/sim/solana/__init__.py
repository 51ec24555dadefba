"""The demo world's Solana (LiteSVM behind a Solana JSON-RPC) and the service's depository there."""
