"""Training speed: ``cardenvs train`` against sb3-contrib's MaskablePPO, side by side in one run.

Both train the same network (separate actor and critic MLPs, ``--hidden`` units per layer,
tanh, as SB3's ``MlpPolicy`` with ``net_arch=dict(pi=..., vf=...)``) on the same game for
the same wall time, one torch thread each, one after the other, alternating ``--rounds``
times so that a change in the machine's load hits both. A sample is one decision of the
learning policy that goes into an update.

- SB3 with its own defaults (``n_steps=2048``, ``batch_size=64``, ``n_epochs=10``) over
  8 ``cardenvs.integrations.sb3.SB3VecEnv`` games (the fast vector env: SB3 is not slowed by the env);
- SB3 with the settings of ``docs/training.md``'s example (``n_steps=128``,
  ``batch_size=256``, ``n_epochs=4``) on 64 games;
- SB3 with the trainer's batch settings (``n_steps`` x envs = the trainer's rollout,
  ``batch_size`` = the trainer's minibatch, ``n_epochs=4``) on 256 games;
- ``cardenvs.agents.training.trainer.Trainer`` with its defaults (tables of self-play, heuristic and pool
  opponents; SB3 plays against heuristic opponents only, which are cheaper than snapshots).

``python benchmarks/train_speed.py [--game president] [--seconds 60] [--rounds 2] [--hidden 256]``
writes ``benchmarks/results/train_speed.json`` and prints the table and the trainer's time split.
"""

from __future__ import annotations

import argparse
import io
import json
import tempfile
import time
from pathlib import Path

import numpy as np


class _Stop(Exception):
    pass


def sb3_rate(game: str, seconds: float, hidden: int, settings: str, num_envs: int) -> float:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from cardenvs.integrations.sb3 import SB3VecEnv

    torch.set_num_threads(1)
    venv = SB3VecEnv(game, num_envs=num_envs, opponents="heuristic", scale_observations=True, seed=0)
    kwargs = {"policy_kwargs": {"net_arch": {"pi": [hidden, hidden], "vf": [hidden, hidden]}}, "seed": 0}
    if settings == "trainer":
        kwargs.update(n_steps=64, batch_size=4096, n_epochs=4)
    elif settings == "docs":
        kwargs.update(n_steps=128, batch_size=256, n_epochs=4)
    model = MaskablePPO("MlpPolicy", venv, **kwargs)

    class Clock(BaseCallback):
        """Counts the samples of finished updates; stops once the time is spent."""

        def __init__(self):
            super().__init__()
            self.start = time.perf_counter()
            self.samples = 0
            self.wall = 0.0

        def _on_step(self) -> bool:
            return True

        def _on_rollout_start(self) -> None:  # the previous rollout has been trained on
            self.samples = self.model.num_timesteps
            self.wall = time.perf_counter() - self.start
            if self.wall >= seconds:
                raise _Stop

    clock = Clock()
    try:
        model.learn(total_timesteps=10**12, callback=clock)
    except _Stop:
        pass
    return clock.samples / clock.wall if clock.wall else float("nan")


def trainer_rate(game: str, seconds: float, hidden: int) -> tuple[float, dict]:
    from cardenvs.agents.training.trainer import TrainConfig, Trainer

    with tempfile.TemporaryDirectory() as tmp:
        cfg = TrainConfig(game=game, minutes=seconds / 60, out=tmp, hidden=(hidden, hidden), torch_threads=1,
                          eval_every_minutes=1e9)
        trainer = Trainer(cfg, out=io.StringIO(), err=io.StringIO())
        trainer.evaluate = lambda matches=None: {f"vs_{n}{s}": 0.0 for n in ("heuristic", "random")
                                                 for s in ("", "_ci", "_truncated")}  # not timed here
        res = trainer.train()
    train_time = res["elapsed"] - res["times"]["eval"]
    split = {k: v / train_time for k, v in res["times"].items() if k != "eval"}
    return res["decisions"] / train_time, split


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="president")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=256)
    args = ap.parse_args(argv)
    # one short pass of everything first: numba compiles, torch warms up
    trainer_rate(args.game, 5, args.hidden)
    rates: dict[str, list[float]] = {"sb3_defaults": [], "sb3_docs_settings": [], "sb3_trainer_settings": [],
                                     "cardenvs_train": []}
    splits = []
    for r in range(args.rounds):
        rates["sb3_defaults"].append(sb3_rate(args.game, args.seconds, args.hidden, "defaults", 8))
        rates["sb3_docs_settings"].append(sb3_rate(args.game, args.seconds, args.hidden, "docs", 64))
        rates["sb3_trainer_settings"].append(sb3_rate(args.game, args.seconds, args.hidden, "trainer", 256))
        rate, split = trainer_rate(args.game, args.seconds, args.hidden)
        rates["cardenvs_train"].append(rate)
        splits.append(split)
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:,.0f}/s" for k, v in rates.items()), flush=True)
    mean = {k: float(np.mean(v)) for k, v in rates.items()}
    split = {k: float(np.mean([s[k] for s in splits])) for k in splits[0]}
    out = {"game": args.game, "hidden": args.hidden, "seconds": args.seconds, "rounds": args.rounds,
           "samples_per_s": rates, "mean": mean,
           "ratio_vs_sb3_defaults": mean["cardenvs_train"] / mean["sb3_defaults"],
           "ratio_vs_sb3_docs_settings": mean["cardenvs_train"] / mean["sb3_docs_settings"],
           "ratio_vs_sb3_trainer_settings": mean["cardenvs_train"] / mean["sb3_trainer_settings"],
           "trainer_time_split": split}
    print(f"\n{args.game}, actor and critic {args.hidden}-{args.hidden}, one torch thread, samples/s (mean of "
          f"{args.rounds} alternating runs of {args.seconds:.0f} s):")
    for k, v in mean.items():
        print(f"  {k:22s} {v:9,.0f}   ({mean['cardenvs_train'] / v:.1f}x)")
    print("cardenvs train time split: " + ", ".join(f"{k} {100 * v:.0f} %" for k, v in split.items()))
    path = Path(__file__).resolve().parent / "results" / "train_speed.json"
    path.write_text(json.dumps(out, indent=2) + "\n")
    return out


if __name__ == "__main__":
    main()
