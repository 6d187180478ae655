"""The asyncio layer: moves DevTools messages and carries out what the core decides."""
