"""One module per game: the rules as numba kernels (see docs/adding-a-game.md)."""
