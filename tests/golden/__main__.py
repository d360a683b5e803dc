"""``python -m tests.golden [--write]``: check (or regenerate) the golden files."""

from tests.golden.playthroughs import main

raise SystemExit(main())
