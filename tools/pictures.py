"""Write one picture per game to docs/images/<game>.png: a table in the middle of a match,
seen by player_0, the same every run (fixed seed, heuristic players).

    python tools/pictures.py            # every game
    python tools/pictures.py odin       # one game

The table is the one ``render_mode="rgb_array"`` gives (cardenvs.core.picture), painted at
twice the size and shrunk for smooth edges.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import cardenvs
from cardenvs.agents import make_agent
from cardenvs.core.picture import table_rgb

ROOT = Path(__file__).resolve().parent.parent
SEED = 7


def _mid_match(env, spec) -> bool:
    """A table worth a picture: the rummies with melds laid, the others a few plays in."""
    rec = env.unwrapped.state_record()[0]
    if "num_melds" in (rec.dtype.names or ()):
        return int(rec["num_melds"]) >= 3 and int(rec["current"]) == 0
    if spec.name == "odin":
        return bool(rec["table"].any()) and int(rec["num_steps"]) >= 10 and int(rec["current"]) == 0
    return int(rec["pile_rank"]) >= 0 and int(rec["num_steps"]) >= 8 and int(rec["current"]) == 0


def picture(name: str) -> Path:
    spec = cardenvs.get_spec(name)
    env = cardenvs.make(spec.env_id)
    env.reset(seed=SEED)
    raw = env.unwrapped
    agents = [make_agent("heuristic", spec, seed=SEED + i) for i in range(raw.num_players)]
    for _ in range(5_000):
        if _mid_match(env, spec):
            break
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raise RuntimeError(f"{name}: the match ended before a mid-match table")
        obs = raw.observe(agent)
        env.step(int(agents[raw.possible_agents.index(agent)].act(obs["observation"], obs["action_mask"] > 0)))
    image = table_rgb(spec, raw.state_record()[0], 0, scale=2)
    from PIL import Image

    out = ROOT / "docs" / "images" / f"{name}.png"
    # a palette of 128 colours keeps each picture small (flat colours, few shades)
    Image.fromarray(np.asarray(image)).quantize(colors=128, dither=Image.Dither.NONE).save(out, optimize=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="games to draw (default: every game)")
    args = parser.parse_args(argv)
    known = [spec.name for spec in cardenvs.list_games()]
    for name in args.games:
        if name not in known:
            parser.error(f"unknown game {name!r}; games: {', '.join(known)}")
    for name in args.games or known:
        out = picture(name)
        print(f"{out.relative_to(ROOT)}: {out.stat().st_size / 1000:.0f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
