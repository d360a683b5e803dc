"""Golden playthroughs: a record of exact play, to catch any change in rules or observations.

In the spirit of OpenSpiel's ``integration_tests/playthroughs``. Two kinds of record, in
``tests/golden/``:

* ``<env_id>.txt``, one per game: a few fixed (seed, options) cases, each played through
  the PettingZoo AEC env (``cardenvs.make``, ``env.reset(seed=seed)``) by a uniformly
  random legal policy, ``np.random.default_rng(seed)`` choosing among ``legal_actions()``.
  Every step gets one line: the step index, the player to move, the move
  (``action_to_str``, and ``public_action_str`` when it differs), the rewards of all
  players after the step, and digests (sha256, first 16 hex digits) of the acting
  player's observation bytes and mask bytes before the step. The table is shown with
  every hand at the deal and after each round end (``render_text(viewer=None)``), and as
  the public view, every hand hidden (the game's own ``render_text(rec, -1)``: no seat
  sees a hand; the env's ``render_text`` takes seats and agents only), every
  ``VIEW_EVERY`` steps, with a running digest of every agent's observation and mask
  (``observe`` for all agents before each step). Each case ends with the outcome and
  that all-agents digest, over the whole playthrough and the final position.
  President and Odin play one full match. Rami 51 matches last thousands of steps
  and Frime under random play, so their cases stop after ``MAX_STEPS`` steps (1,000)
  unless the match ends first (the non-default case, with a low elimination score,
  plays a whole match inside that cap).
* ``random_play_digests.json``: per configuration (each game at two player counts with
  the default options, plus the game's non-default option case), ``NUM_ENVS`` games in
  the VecEnv (``make_vec(env_id, NUM_ENVS, seed)``, auto-reset) stepped ``steps`` batch
  steps by the compiled ``RandomSampler`` of ``cardenvs.core.vector``; one sha256 over,
  per step, the actions, observations, masks, current players, rewards and event flags
  (terminated, truncated, round ended, illegal, forced moves), and an 8-hex digest of
  each step alone (entry 0 is the reset) to locate the first difference. It also holds,
  per game, one digest over the all-agents digests of its AEC cases.

Run from the repository root::

    python -m tests.golden            # check: print the differences, exit status 1 on any
    python -m tests.golden --write    # regenerate every file (the only way to write them)

``tests/golden/test_golden.py`` runs the same check. A difference means the play changed: if
the change is intended, regenerate; a change to the rules or to the observations must
also bump the env id (``president_v0`` -> ``president_v1``) with a line in the version
history of the game's page under ``docs/games/`` (see ``docs/adding-a-game.md``). A
change only to ``render_text`` or ``action_to_str`` shows as changed table or move text
with unchanged digests and rewards: regenerate, no new version.

The random policy draws with ``Generator.integers``; NumPy does not promise that its
streams stay the same across versions, so a NumPy upgrade that changed them would show
as a difference in every case (the VecEnv digests, which use the package's own sampler,
would not move).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as ``python tests/golden/playthroughs.py``: the repository root first on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

import cardenvs  # noqa: E402
from cardenvs.core.vector import RandomSampler  # noqa: E402

GOLDEN_DIR = Path(__file__).resolve().parent
DIGESTS_FILE = GOLDEN_DIR / "random_play_digests.json"
REGENERATE = "python -m tests.golden --write"
BUMP_NOTE = (
    "If the change is intended, regenerate with `" + REGENERATE + "` (from the repository root). "
    "A change to the rules or to the observations must also bump the env id (e.g. rami51_v0 -> rami51_v1) "
    "with a line in the version history of the game's page under docs/games/; a change to the text "
    "of render_text or action_to_str alone (digests and rewards unchanged) needs no new version."
)

GAMES = ("president_v0", "odin_v1", "rami51_v3", "frime_v1", "classes_v2")

# (seed, options): two player counts with the default options, then one non-default set
CASES: dict[str, list[tuple[int, dict[str, Any]]]] = {
    "president_v0": [
        (1, {"num_players": 4}),
        (2, {"num_players": 5}),
        (3, {"num_players": 6, "decks": 2, "target_score": 5, "reward_mode": "round", "two_is_highest": False,
             "completion_offers": "holders", "auto_play_forced": True}),
    ],
    "odin_v1": [
        (11, {"num_players": 2}),
        (12, {"num_players": 4}),
        (13, {"num_players": 2, "two_player_colours": 6, "target_score": 10, "reward_mode": "round"}),
        (14, {"num_players": 6, "single_round": True, "auto_play_forced": True}),
    ],
    "rami51_v3": [
        (21, {"num_players": 2}),
        (22, {"num_players": 4}),
        (23, {"num_players": 3, "decks": 2, "opening_points": 30, "reward_mode": "round",
              "elimination_score": 60, "max_turns_per_round": 0}),
    ],
    "frime_v1": [
        (31, {"num_players": 4}),
        (32, {"num_players": 6}),
        (33, {"num_players": 5, "first_round": 9, "single_round": True, "reward_mode": "round",
              "max_turns_per_round": 60}),
    ],
    "classes_v2": [
        (41, {"num_players": 2}),
        (42, {"num_players": 5}),
        (43, {"num_players": 3, "first_class": 6, "single_round": True, "run_same_suit": False,
              "same_rank_sets": False, "reward_mode": "round", "max_turns_per_round": 80}),
    ],
}
# the cap of a playthrough; the other games play the match out
MAX_STEPS = {"rami51_v3": 1000, "frime_v1": 1000, "classes_v2": 1000}
SAFETY_STEPS = 100_000  # a match still running after this many steps is a bug
VIEW_EVERY = 25  # the public view and the running all-agents digest every this many steps

# the VecEnv digests: (env_id, options) per configuration, batch steps per game
NUM_ENVS = 1000
VEC_SEED = 2024
SAMPLER_SEED = 7
VEC_STEPS = {"president_v0": 1000, "odin_v1": 600, "rami51_v3": 1000, "frime_v1": 600, "classes_v2": 600}
VEC_FIELDS = ("observation", "legal_action_mask", "current_player", "rewards", "terminated", "truncated",
              "round_ended", "illegal", "forced_moves")


def vec_configs() -> dict[str, tuple[str, dict[str, Any]]]:
    """Name -> (env_id, options): per game its first two cases' player counts (default
    options) and its non-default option case (the third)."""
    out = {}
    for env_id in GAMES:
        cases = CASES[env_id]
        for _, options in cases[:2]:
            out[f"{env_id}/{options['num_players']}p"] = (env_id, {"num_players": options["num_players"]})
        out[f"{env_id}/options"] = (env_id, dict(cases[2][1]))
    return out


def _short(data: bytes, n: int = 16) -> str:
    return hashlib.sha256(data).hexdigest()[:n]


def _num(x: float) -> str:
    """A reward in the shortest text that reads back as the same float32."""
    return np.format_float_positional(np.float32(x), trim="-")


def _options_text(options: dict[str, Any]) -> str:
    return json.dumps(options, sort_keys=True)


def _indent(text: str) -> list[str]:
    return ["    " + line for line in text.splitlines()]


# ---------------------------------------------------------------------------------------- AEC playthroughs
def play_case(env_id: str, seed: int, options: dict[str, Any]) -> tuple[list[str], str]:
    """The record of one case (lines) and its all-agents observation digest (64 hex)."""
    env = cardenvs.make(env_id, **options)
    raw = env.unwrapped
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    agents = list(raw.possible_agents)
    cap = MAX_STEPS.get(env_id)
    everyone = hashlib.sha256()

    def observe_all() -> None:
        for agent in agents:
            obs = env.observe(agent)
            everyone.update(obs["observation"].tobytes())
            everyone.update(obs["action_mask"].tobytes())

    def done() -> bool:
        return all(raw.terminations.values()) or all(raw.truncations.values())

    lines = [f"== case {env_id} seed={seed} options={_options_text(options)}"]
    if cap is not None:
        lines.append(f"   (stops after {cap} steps unless the match ends first)")
    forced = f"; forced moves at the reset: {raw.forced_moves}" if raw.forced_moves else ""
    lines.append(f"-- the deal (every hand){forced}")
    lines += _indent(raw.render_text(None))
    info = json.dumps(raw.infos[agents[0]], sort_keys=True)
    totals = [0.0] * len(agents)
    step = 0
    while not done() and (cap is None or step < cap):
        if step >= SAFETY_STEPS:
            raise RuntimeError(f"{env_id} seed={seed}: the match is still running after {step} steps")
        agent = raw.agent_selection
        obs = env.observe(agent)
        observe_all()
        legal = raw.legal_actions()
        if legal != [int(a) for a in np.flatnonzero(obs["action_mask"])]:
            raise RuntimeError(f"{env_id} seed={seed} step {step}: legal_actions() and the mask disagree")
        action = legal[int(rng.integers(len(legal)))]
        move = raw.action_to_str(action)
        public = raw.public_action_str(action)
        env.step(action)
        rewards = [raw.rewards[a] for a in agents]
        totals = [t + r for t, r in zip(totals, rewards, strict=True)]
        text = f"step {step} {agent} {move!r}"
        if public != move:
            text += f" (public {public!r})"
        if raw.forced_moves:
            text += f" +{raw.forced_moves} forced"
        text += (f" r=[{' '.join(_num(r) for r in rewards)}]"
                 f" obs={_short(obs['observation'].tobytes())} mask={_short(obs['action_mask'].tobytes())}")
        lines.append(text)
        step += 1
        new_info = json.dumps(raw.infos[agents[0]], sort_keys=True)
        if new_info != info and not done():
            info = new_info
            lines.append(f"-- after step {step - 1}: round over, infos {info}; the table (every hand)")
            lines += _indent(raw.render_text(None))
        elif step % VIEW_EVERY == 0 and not done():
            lines.append(f"-- after step {step - 1}: public view; all-agents digest {everyone.hexdigest()[:16]}")
            lines += _indent(raw.spec.module.render_text(raw.state_record()[0], -1))
    observe_all()
    if all(raw.terminations.values()):
        outcome = "terminated"
    elif all(raw.truncations.values()):
        outcome = "truncated"
    else:
        outcome = f"stopped at the cap of {cap} steps"
    lines.append(f"-- end after {step} steps: {outcome}; infos {json.dumps(raw.infos[agents[0]], sort_keys=True)}")
    lines += _indent(raw.render_text(None))
    lines.append(f"   summed rewards [{' '.join(f'{t:.6g}' for t in totals)}]")
    lines.append(f"   all-agents observation digest {everyone.hexdigest()}")
    return lines, everyone.hexdigest()


@functools.cache
def playthrough(env_id: str) -> tuple[str, str]:
    """The text of ``tests/golden/<env_id>.txt`` and the game's all-agents digest (over its cases)."""
    lines = [
        f"# Golden playthroughs of {env_id}: generated by `{REGENERATE}`, never edited by hand.",
        "# Policy: np.random.default_rng(seed) picks uniformly among legal_actions(); env.reset(seed=seed).",
        "# step N player move r=[rewards of every player after the step] obs=/mask= sha256 (16 hex) of the",
        "# acting player's observation and mask bytes before the step. See tests/golden.py.",
    ]
    digests = []
    for seed, options in CASES[env_id]:
        case_lines, digest = play_case(env_id, seed, options)
        lines += [""] + case_lines
        digests.append(digest)
    game_digest = hashlib.sha256("\n".join(digests).encode()).hexdigest()
    return "\n".join(lines) + "\n", game_digest


# ---------------------------------------------------------------------------------------- VecEnv digests
def vec_digest(env_id: str, options: dict[str, Any], steps: int) -> dict[str, Any]:
    """Random play of NUM_ENVS games for ``steps`` batch steps: the digests and a few counts."""
    venv = cardenvs.make_vec(env_id, NUM_ENVS, seed=VEC_SEED, **options)
    sampler = RandomSampler(SAMPLER_SEED)
    whole = hashlib.sha256()
    per_step = []

    def absorb(state, actions) -> None:
        one = hashlib.sha256()
        if actions is not None:
            one.update(actions.tobytes())
        for name in VEC_FIELDS:  # the arrays' bytes as they are (a copy by tobytes cost a tenth of the test)
            one.update(np.ascontiguousarray(getattr(state, name)))
        digest = one.digest()
        whole.update(digest)
        per_step.append(digest.hex()[:8])

    state = venv.reset()
    absorb(state, None)
    ended = truncated = round_ends = forced = 0
    for _ in range(steps):
        actions = sampler(state.legal_action_mask)
        state = venv.step(actions)
        absorb(state, actions)
        ended += int(state.terminated.sum())
        truncated += int(state.truncated.sum())
        round_ends += int(state.round_ended.sum())
        forced += int(state.forced_moves.sum())
    return {
        "env_id": env_id,
        "options": options,
        "num_envs": NUM_ENVS,
        "seed": VEC_SEED,
        "sampler_seed": SAMPLER_SEED,
        "steps": steps,
        "sha256": whole.hexdigest(),
        "matches_terminated": ended,
        "matches_truncated": truncated,
        "round_ends": round_ends,
        "forced_moves": forced,
        "step_digests": " ".join(per_step),
    }


def vec_record(name: str) -> dict[str, Any]:
    env_id, options = vec_configs()[name]
    return vec_digest(env_id, options, VEC_STEPS[env_id])


def digests_record() -> dict[str, Any]:
    """The whole content of random_play_digests.json."""
    return {
        "about": "random-play digests; see tests/golden/playthroughs.py. Regenerate with: " + REGENERATE,
        "vec": {name: vec_record(name) for name in vec_configs()},
        "aec_all_agents": {env_id: playthrough(env_id)[1] for env_id in GAMES},
    }


# ---------------------------------------------------------------------------------------- comparison
def compare_text(expected: str | None, actual: str, name: str) -> str | None:
    """None if equal, else a message naming the case and the first differing step."""
    if expected is None:
        return f"{name}: the golden file is missing. Generate it with `{REGENERATE}`."
    if expected == actual:
        return None
    exp, act = expected.splitlines(), actual.splitlines()
    i = 0
    while i < min(len(exp), len(act)) and exp[i] == act[i]:
        i += 1
    case, where = "(file header)", "before the first step"
    for line in exp[: i + 1] if i < len(exp) else exp:
        if line.startswith("== case "):
            case, where = line[len("== case "):], "at the deal, before the first step"
        elif line.startswith("step "):
            where = f"after step {line.split()[1]}"
    if i < len(exp) and exp[i].startswith("step "):
        where = f"at step {exp[i].split()[1]}"
    elif i < len(act) and act[i].startswith("step "):
        where = f"at step {act[i].split()[1]}"
    got = act[i] if i < len(act) else "(end of output)"
    want = exp[i] if i < len(exp) else "(end of file)"
    return (
        f"{name}: golden playthrough differs in case {case}, first {where} (line {i + 1}):\n"
        f"  expected: {want}\n  actual:   {got}\n{BUMP_NOTE}"
    )


def compare_vec(expected: dict[str, Any] | None, actual: dict[str, Any], name: str) -> str | None:
    """None if the digests agree, else a message naming the first differing batch step."""
    if expected is None:
        return f"{name}: no recorded digest. Generate it with `{REGENERATE}`."
    if expected == actual:
        return None
    for key in ("env_id", "options", "num_envs", "seed", "sampler_seed", "steps"):
        if expected.get(key) != actual.get(key):
            return (f"{name}: the configuration changed ({key}: recorded {expected.get(key)!r}, "
                    f"now {actual.get(key)!r}). Regenerate with `{REGENERATE}`.")
    exp_steps, act_steps = expected.get("step_digests", "").split(), actual["step_digests"].split()
    first = next((k for k, (a, b) in enumerate(zip(exp_steps, act_steps, strict=False)) if a != b), None)
    if first is None:
        where = "the per-step digests agree: the record itself was edited" if exp_steps == act_steps else (
            f"the step counts differ ({len(exp_steps)} recorded, {len(act_steps)} now)")
    elif first == 0:
        where = "first difference at the reset (the deal or the first observations)"
    else:
        where = f"first difference at batch step {first}"
    counts = ", ".join(f"{k} {expected.get(k)} -> {actual[k]}" for k in
                       ("matches_terminated", "matches_truncated", "round_ends", "forced_moves")
                       if expected.get(k) != actual[k])
    return f"{name}: random-play digest differs; {where}" + (f" ({counts})" if counts else "") + f".\n{BUMP_NOTE}"


def compare_aec_digest(expected: str | None, actual: str, env_id: str) -> str | None:
    if expected == actual:
        return None
    return (f"{env_id}: the all-agents observation digest of the AEC playthroughs differs "
            f"(recorded {expected}, now {actual}); the per-case digests in tests/golden/{env_id}.txt "
            f"say which case.\n{BUMP_NOTE}")


def read_text(env_id: str) -> str | None:
    path = GOLDEN_DIR / f"{env_id}.txt"
    return path.read_text(encoding="utf-8") if path.exists() else None


def read_digests() -> dict[str, Any]:
    return json.loads(DIGESTS_FILE.read_text(encoding="utf-8")) if DIGESTS_FILE.exists() else {}


def check() -> list[str]:
    """Every difference between the recorded files and a fresh run, as messages."""
    problems = []
    for env_id in GAMES:
        msg = compare_text(read_text(env_id), playthrough(env_id)[0], f"tests/golden/{env_id}.txt")
        if msg:
            problems.append(msg)
    recorded = read_digests()
    for name in vec_configs():
        msg = compare_vec(recorded.get("vec", {}).get(name), vec_record(name), name)
        if msg:
            problems.append(msg)
    for env_id in GAMES:
        msg = compare_aec_digest(recorded.get("aec_all_agents", {}).get(env_id), playthrough(env_id)[1], env_id)
        if msg:
            problems.append(msg)
    return problems


def write() -> None:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for env_id in GAMES:
        path = GOLDEN_DIR / f"{env_id}.txt"
        path.write_text(playthrough(env_id)[0], encoding="utf-8")
        print(f"wrote {path.relative_to(GOLDEN_DIR.parent.parent)} ({path.stat().st_size:,} bytes)")
    DIGESTS_FILE.write_text(json.dumps(digests_record(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {DIGESTS_FILE.relative_to(GOLDEN_DIR.parent.parent)} ({DIGESTS_FILE.stat().st_size:,} bytes)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="regenerate every golden file (otherwise only check)")
    args = parser.parse_args(argv)
    if args.write:
        write()
        return 0
    problems = check()
    for msg in problems:
        print(msg, end="\n\n")
    print("golden files: " + (f"{len(problems)} difference(s)" if problems else "all match"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
