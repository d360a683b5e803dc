"""What the training interfaces cost and save, measured in one run on one machine.

1. Random legal play with and without ``auto_play_forced``, every game: the share of
   decisions that were forced, and real choices per second (vector env, N=1,024, one
   thread; AEC env with a Python random agent).
2. ``LearnerVecEnv`` against heuristic opponents: the learner's decisions per second at
   N = 1, 64, 1,024 (random learner; the opponents' moves are chosen in batch).
3. SB3 MaskablePPO, same network and settings: training samples per second on
   ``gymnasium.make`` single envs (8 in SB3's DummyVecEnv) against ``cardenvs.integrations.sb3.SB3VecEnv``.
4. A torch training step with a threaded vector step run first or not, under
   ``OMP_WAIT_POLICY`` unset or PASSIVE, idle and with the other core busy (``--threads-study``).

``python benchmarks/training.py [--seconds S] [--games ...] [--skip-sb3] [--threads-study]``
(torch and sb3-contrib for part 3: ``pip install -e ".[sb3]"``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def forced_share(game: str, players: int, seconds: float) -> dict:
    import cardenvs
    from cardenvs.core.vector import RandomSampler

    out = {}
    for forced in (False, True):
        venv = cardenvs.make_vec(game, num_envs=1024, seed=0, num_players=players, auto_play_forced=forced)
        sampler = RandomSampler(0)
        state = venv.reset()
        for _ in range(20):  # warm
            state = venv.step(sampler(state.legal_action_mask))
        real = skipped = single = 0
        t = time.perf_counter()
        while time.perf_counter() - t < seconds:
            single += int((state.legal_action_mask.sum(axis=1) == 1).sum())
            state = venv.step(sampler(state.legal_action_mask))
            real += venv.num_envs
            skipped += int(state.forced_moves.sum())
        wall = time.perf_counter() - t
        real -= single  # without auto-play, the forced decisions were among those played
        out["vector_forced" if forced else "vector_plain"] = {
            "real_choices_per_s": real / wall,
            "forced_share": (skipped + single) / (real + skipped + single),
        }
        env = cardenvs.make_raw(game, num_players=players, auto_play_forced=forced)
        rng = np.random.default_rng(0)
        env.reset(seed=0)
        real = 0
        t = time.perf_counter()
        while time.perf_counter() - t < seconds:
            if all(env.terminations.values()) or all(env.truncations.values()):
                env.reset()
            legal = env.legal_actions()
            real += len(legal) > 1
            env.step(legal[int(rng.integers(len(legal)))])
        out["aec_forced" if forced else "aec_plain"] = {"real_choices_per_s": real / (time.perf_counter() - t)}
    return out


def learner_rate(game: str, players: int, n: int, seconds: float, opponents: str = "heuristic") -> float:
    """LearnerVecEnv's learner decisions per second (a random learner) after 5 warm-up steps."""
    from cardenvs.core.vector import RandomSampler
    from cardenvs.integrations.gym import LearnerVecEnv

    env = LearnerVecEnv(game, n, opponents=opponents, seed=0, num_players=players)
    env.reset()
    sampler = RandomSampler(0)
    for _ in range(5):
        env.step(sampler(env.action_masks()))
    steps = 0
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        env.step(sampler(env.action_masks()))
        steps += n
    return steps / (time.perf_counter() - t)


def sb3_rates(game: str, timesteps: int) -> dict:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    import cardenvs  # noqa: F401  (registers the Gymnasium ids)
    from cardenvs.integrations.gym import gym_id
    from cardenvs.integrations.sb3 import SB3VecEnv

    torch.set_num_threads(1)
    settings = {"n_steps": 128, "batch_size": 256, "n_epochs": 4, "seed": 0,
                "policy_kwargs": {"net_arch": [128, 128]}}
    out = {}
    for label, make in (
        ("gymnasium.make x8 (DummyVecEnv)",
         lambda: make_vec_env(gym_id(game), 8, env_kwargs={"scale_observations": True})),
        ("SB3VecEnv N=8", lambda: SB3VecEnv(game, 8, scale_observations=True)),
        ("SB3VecEnv N=64", lambda: SB3VecEnv(game, 64, scale_observations=True)),
    ):
        model = MaskablePPO("MlpPolicy", make(), **settings)
        model.learn(2048)  # warm
        t = time.perf_counter()
        model.learn(timesteps, reset_num_timesteps=False)
        out[label] = timesteps / (time.perf_counter() - t)
    return out


_TORCH_STEP = r"""
import os, sys, time, json
run_threaded_step = sys.argv[1] == "1"
import numpy as np
import torch
torch.set_num_threads(2)
if run_threaded_step:
    import cardenvs
    from cardenvs.core.vector import RandomSampler
    v = cardenvs.make_vec("president_v0", num_envs=2048, num_threads=2)
    s = v.reset()
    v.step(RandomSampler(0)(s.legal_action_mask))
net = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.Tanh(), torch.nn.Linear(256, 256), torch.nn.Tanh(),
                          torch.nn.Linear(256, 128))
opt = torch.optim.Adam(net.parameters())
x = torch.randn(1024, 256)
def step():
    opt.zero_grad(); net(x).pow(2).mean().backward(); opt.step()
for _ in range(20): step()
t = time.perf_counter(); k = 0
while time.perf_counter() - t < 3: step(); k += 1
print(json.dumps({"ms_per_update": 1000 * (time.perf_counter() - t) / k}))
"""


def threads_study() -> list[dict]:
    rows = []
    for load in (False, True):
        hog = None
        if load:
            hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            for policy in (None, "PASSIVE"):
                for start in ("0", "1"):
                    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
                    if policy:
                        env["OMP_WAIT_POLICY"] = policy
                    out = subprocess.run([sys.executable, "-c", _TORCH_STEP, start], env=env, capture_output=True,
                                         text=True, timeout=900)
                    ok = out.returncode == 0
                    res = json.loads(out.stdout.strip().splitlines()[-1]) if ok else {"error": out.stderr[-300:]}
                    rows.append({"load": load, "OMP_WAIT_POLICY": policy or "unset",
                                 "threaded_step_run": start == "1", **res})
        finally:
            if hog is not None:
                hog.kill()
    return rows


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--games", nargs="+", default=["president_v0", "odin_v1", "rami51_v3"])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--sb3-timesteps", type=int, default=16384)
    ap.add_argument("--skip-sb3", action="store_true")
    ap.add_argument("--threads-study", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    report: dict = {"forced": {}, "learner": {}, "sb3": {}}
    for game in args.games:
        res = forced_share(game, args.players, args.seconds)
        report["forced"][game] = res
        vp, vf = res["vector_plain"]["real_choices_per_s"], res["vector_forced"]["real_choices_per_s"]
        ap_, af = res["aec_plain"]["real_choices_per_s"], res["aec_forced"]["real_choices_per_s"]
        print(f"{game}: forced share {res['vector_forced']['forced_share']:.1%} of decisions; real choices/s "
              f"(plain -> auto_play_forced): vector {vp:,.0f} -> {vf:,.0f}, AEC {ap_:,.0f} -> {af:,.0f}", flush=True)
    for game in args.games:
        report["learner"][game] = {n: learner_rate(game, args.players, n, args.seconds) for n in (1, 64, 1024)}
        print(f"{game}: LearnerVecEnv vs heuristic, learner decisions/s "
              + ", ".join(f"N={n}: {r:,.0f}" for n, r in report["learner"][game].items()), flush=True)
    if not args.skip_sb3:
        for game in args.games[:1]:
            report["sb3"][game] = sb3_rates(game, args.sb3_timesteps)
            rates = ", ".join(f"{k}: {v:,.0f}" for k, v in report["sb3"][game].items())
            print(f"{game}: MaskablePPO samples/s {rates}", flush=True)
    if args.threads_study:
        report["threads"] = threads_study()
        for row in report["threads"]:
            print(row, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return report


if __name__ == "__main__":
    main()
