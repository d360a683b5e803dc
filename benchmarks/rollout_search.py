"""How much better than a game's heuristic player can a search over it play?

One seat plays by the one-step search that ``cardenvs train search`` learns
from (``cardenvs.agents.training.expert``): at each of its decisions with more than one legal action it
deals the cards it cannot see anew K times, tries every legal action in each deal, plays
the round out with heuristic players at every seat, and takes the action with the best
mean value (a round's reward minus the others' mean; in a one-round match, the win). The
other seats are heuristic players. It prints the search seat's share of the match wins
(ties shared, seats rotated, 95 % interval; fair share 1/P).

- ``--hands true`` keeps the other hands as they are and deals only the cards no one
  holds (the stock): the search reads the other hands, so it is no fair player.
- ``--true-deal`` searches the true deal, stock order included (it sees every card: an
  upper bound, not a fair player).
- ``--control`` runs the searches but plays the heuristic's move (the share is then the
  heuristic's own, about 1/P).

This measures the room a policy improvement over the heuristic has, and how the search's
strength grows with its deals. The same search plays as the agent ``search``
(``cardenvs eval GAME --agents search:K,heuristic``; its cost: benchmarks/search_speed.py).

    python benchmarks/rollout_search.py odin --samples 16 --matches 1024
    python benchmarks/rollout_search.py rami51 --single-round --hands true --samples 64 --matches 512
"""

from __future__ import annotations

import argparse
import sys

from cardenvs.agents.training.expert import label_positions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("game", choices=("odin", "rami51"))
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--single-round", action="store_true", help="one round is the match (valued by the win)")
    ap.add_argument("--samples", type=int, help="deals of the unseen cards per decision (default 16)")
    ap.add_argument("--hands", choices=("sampled", "true"),
                    help="deal the other hands anew (sampled, the default) or keep them (true: reads them)")
    ap.add_argument("--matches", type=int, default=1024, help="matches (rounded up to a multiple of --batch)")
    ap.add_argument("--batch", type=int, default=64, help="matches played side by side")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--control", action="store_true", help="search, but play the heuristic's move")
    ap.add_argument("--true-deal", action="store_true", help="search the true deal (sees every card)")
    args = ap.parse_args()
    if args.true_deal and (args.hands is not None or args.samples is not None):
        ap.error("--true-deal searches the one true deal: it takes neither --hands nor --samples")
    hands = args.hands or "sampled"
    samples = 1 if args.true_deal else (16 if args.samples is None else args.samples)  # the true deal is one deal
    options = {"single_round": True} if args.single_round else {}
    label_positions(args.game, args.players, samples, float("inf"), args.seed, args.batch, None,
                    max_matches=args.matches, log=sys.stdout, options=options, hands=hands,
                    control=args.control, true_deal=args.true_deal, play_search=not args.control)


if __name__ == "__main__":
    main()
