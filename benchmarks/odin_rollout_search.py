"""How much better than Odin's heuristic player can a search over it play?

One seat plays by a one-step lookahead: at each of its decisions (with more than one legal
action) it deals the cards it cannot see anew K times (the other hands but their public
cards, and the cards set aside; every hand keeps its size), tries every legal action in
each deal, plays the round out with heuristic players at every seat, and takes the action
with the best mean of (its round reward - the others' mean). The three other seats are
heuristic players. It prints the search seat's share of the match wins (ties shared,
seats rotated, 95 % interval; fair share 1/P). ``--samples 0`` searches on the true deal
(it sees every card: an upper bound, not a fair player); ``--control`` runs the searches
but plays the heuristic's move (the share is then the heuristic's own, about 1/P).

This measures the room a policy improvement over the heuristic has (for example a trained
policy that learns from these searches' choices); the search itself is no agent of the
package (it reads the game's state).

    python benchmarks/odin_rollout_search.py --samples 16 --matches 1000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from cardenvs.agents import make_agent

from cardenvs.core.protocol import (
    ACT_HOLD,
    EVENT_ROUND_END,
    EVENT_TERMINATED,
    EVENT_TRUNCATED,
    MODE_AUTO_FORCED,
)
from cardenvs.core.vector import VecEnv
from cardenvs.registry import get_spec

ROUND_OVER = EVENT_ROUND_END | EVENT_TERMINATED | EVENT_TRUNCATED


def step_raw(game, states: np.ndarray, actions: np.ndarray):
    """One compiled step of ``states`` (no checks: the actions are legal or pseudo-actions)."""
    n = len(states)
    masks = np.empty((n, game.NUM_ACTIONS), np.bool_)
    obs = np.empty((n, game.OBS_SIZE), game.OBS_DTYPE)
    rewards = np.empty((n, game.MAX_PLAYERS), np.float32)
    events = np.empty(n, np.int32)
    current = np.empty(n, np.int32)
    game.step_batch(states, actions.astype(np.int64), masks, obs, rewards, events, current, MODE_AUTO_FORCED)
    return obs, masks, rewards, events


def redeal_hidden(game, state: np.ndarray, seat: int, players: int, rng: np.random.Generator) -> None:
    """Deal anew, in the one-game array ``state``, the cards ``seat`` cannot see."""
    s = state[0]
    pool = s["aside"].astype(np.int64)
    unknown = {}
    for q in range(players):
        if q != seat:
            hidden = s["hands"][q].astype(np.int64) - s["known"][q]
            pool = pool + hidden
            unknown[q] = int(hidden.sum())
    cards = rng.permutation(np.repeat(np.arange(len(pool)), pool))
    k = 0
    for q, n in unknown.items():
        hand = s["known"][q].astype(np.int64)
        np.add.at(hand, cards[k:k + n], 1)
        s["hands"][q] = hand
        k += n
    aside = np.zeros(len(pool), np.int64)
    np.add.at(aside, cards[k:], 1)
    s["aside"] = aside
    state[0] = s
    # the derived fields (card bits, counts, mask) from the new hands
    game.refresh_batch(state, np.empty((1, game.NUM_ACTIONS), np.bool_),
                       np.empty((1, game.OBS_SIZE), game.OBS_DTYPE), np.empty(1, np.int32))


def round_values(game, heuristic, states: np.ndarray, actions: np.ndarray, seat: int, players: int) -> np.ndarray:
    """Each state after its action, played to the round's end by heuristic players: the
    seat's round reward minus the others' mean."""
    value = np.zeros(len(states))
    live = np.ones(len(states), bool)
    a = actions
    while True:
        obs, masks, rewards, events = step_raw(game, states, a)
        r = rewards[:, :players].astype(np.float64)
        value += live * (r[:, seat] - (r.sum(1) - r[:, seat]) / (players - 1))
        live &= (events & ROUND_OVER) == 0
        if not live.any():
            return value
        a = heuristic.act_batch(obs, masks).astype(np.int64)
        a[~live] = ACT_HOLD


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--samples", type=int, default=16, help="deals of the hidden cards per decision (0: the true one)")
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=50, help="matches played side by side")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--control", action="store_true", help="search, but play the heuristic's move")
    args = ap.parse_args()
    spec = get_spec("odin")
    game = spec.module
    P = args.players
    heuristic = make_agent("heuristic", spec)
    round_mode = game.make_template(num_players=P, reward_mode="round")["reward_mode"][0]
    rng = np.random.default_rng(args.seed)
    wins = 0.0
    played = searched = changed = 0
    t0 = time.perf_counter()
    while played < args.matches:
        n = min(args.batch, args.matches - played)
        venv = VecEnv(spec, n, auto_reset=False, auto_play_forced=True, num_players=P)
        st = venv.reset(seeds=np.arange(args.seed + played, args.seed + played + n))
        seat = (np.arange(n) + played) % P
        total = np.zeros((n, P))
        done = np.zeros(n, bool)
        while not done.all():
            acts = heuristic.act_batch(st.observation, st.legal_action_mask).astype(np.int64)
            for i in np.flatnonzero(~done & (st.current_player == seat) & (st.legal_action_mask.sum(1) > 1)):
                legal = np.flatnonzero(st.legal_action_mask[i])
                deals = np.repeat(venv.states[i:i + 1], max(args.samples, 1))
                if args.samples:
                    for k in range(args.samples):
                        redeal_hidden(game, deals[k:k + 1], int(seat[i]), P, rng)
                tries = np.repeat(deals, len(legal))  # deal-major: deal k, then each action
                tries["reward_mode"] = round_mode
                v = round_values(game, heuristic, tries, np.tile(legal, len(deals)), int(seat[i]), P)
                best = int(legal[int(np.argmax(v.reshape(len(deals), len(legal)).mean(0)))])
                searched += 1
                changed += best != acts[i]
                if not args.control:
                    acts[i] = best
            acts[done] = 0  # a finished match ignores its action
            st = venv.step(acts)
            total += st.rewards
            done |= st.terminated | st.truncated
        for i in range(n):
            winners = np.flatnonzero(total[i] == total[i].max())
            wins += (seat[i] in winners) / len(winners)
        played += n
        share = wins / played
        half = 1.96 * np.sqrt(share * (1 - share) / played)
        print(f"{played} matches: search seat's win share {share:.3f} +- {half:.3f}"
              f" ({searched} searched decisions, {changed / max(searched, 1):.1%} unlike the heuristic's move,"
              f" {time.perf_counter() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
