"""Rollout throughput on Ray workers, what travels per round, and RLlib's sampling speed.

    python benchmarks/ray_rollouts.py                      # rollouts on 1 and 2 workers (and in this process)
    python benchmarks/ray_rollouts.py --train              # cardenvs train: one process, then 2 Ray workers
    python benchmarks/ray_rollouts.py --rllib              # RLlib PPO with the MultiAgentEnv, 2 env runners
    python benchmarks/ray_rollouts.py --address auto       # on a running Ray cluster instead of a local instance

Decisions per second are every seat's decisions (self-play), counted over whole rounds of
``sample`` as the caller sees them: sampling, the transfer of the arrays and their
concatenation. Needs ``pip install "cardenvs[ray]"`` (``--rllib``: ``"cardenvs[rllib]"``).
"""

from __future__ import annotations

import argparse
import io
import json
import pickle
import statistics
import sys
import time
from typing import Any


def rollout_figures(game: str, workers: int, num_envs: int, decisions: int, rounds: int, policy: Any,
                    ray_arg: bool | str) -> dict[str, Any]:
    from cardenvs.agents.training.distributed import RolloutWorkers

    started = time.perf_counter()
    with RolloutWorkers(game, workers=workers, num_envs=num_envs, seed=0, ray=ray_arg) as pool:
        info = pool.pool.info()
        ready = time.perf_counter() - started
        first = time.perf_counter()
        out = pool.sample(policy, decisions)  # the first round loads the kernels in each worker
        first = time.perf_counter() - first
        rates = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            out = pool.sample(policy, decisions)
            rates.append(out["action"].size / (time.perf_counter() - t0))
        state = len(pool.pool.local[0].get_state()) if not pool.pool.on_ray else len(pool.pool.states[0])
    result_bytes = sum(v.nbytes for v in out.values())
    return {"workers": workers, "on_ray": ray_arg is not False, "num_envs_per_worker": num_envs,
            "decisions_per_round": int(out["action"].size), "decisions_per_s": statistics.median(rates),
            "range": [min(rates), max(rates)], "start_s": ready, "first_round_s": first,
            "worker_build_s": [round(i["start_seconds"], 2) for i in info],
            "result_bytes_per_decision": result_bytes / out["action"].size,
            "policy_bytes": len(pickle.dumps(policy, protocol=5)), "state_bytes_per_worker": state}


def train_figures(game: str, workers: int, decisions: int, ray_arg: str | None) -> dict[str, Any]:
    import tempfile

    from cardenvs.agents.training.trainer import TrainConfig, Trainer

    folder = tempfile.mkdtemp(prefix="ray-bench-")
    cfg = TrainConfig(game=game, decisions=decisions, minutes=None, out=folder, eval_matches=8,
                      eval_every_minutes=1e6, torch_threads=1, workers=workers, ray=ray_arg, seed=0)
    trainer = Trainer(cfg, out=io.StringIO(), err=io.StringIO())
    res = trainer.train()
    payload = None
    if workers > 1 or ray_arg is not None:
        from cardenvs.agents.training.distributed import TrainerWorkers

        payload = len(pickle.dumps(TrainerWorkers._payload(trainer), protocol=5))
    sampling = sum(res["times"][k] for k in ("env", "opponents", "inference", "advantages"))
    return {"workers": workers, "ray": ray_arg, "samples_per_s": res["decisions"] / res["elapsed"],
            "decisions": res["decisions"], "elapsed_s": res["elapsed"],
            "update_share": res["times"]["update"] / res["elapsed"], "sampling_share": sampling / res["elapsed"],
            "payload_bytes": payload}


def rllib_figures(game: str, env_runners: int, steps: int, rounds: int) -> dict[str, Any]:
    from cardenvs.integrations.rllib import action_masking_ppo_config

    cfg = action_masking_ppo_config(game, env_runners=env_runners).training(
        train_batch_size_per_learner=steps, minibatch_size=max(steps // 4, 1), num_epochs=1)
    algo = cfg.build_algo()
    group = algo.env_runner_group
    per_runner = steps // env_runners
    group.foreach_env_runner(lambda er: len(er.sample(num_timesteps=per_runner)), local_env_runner=False)  # warm-up
    sample_rates = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        group.foreach_env_runner(lambda er: len(er.sample(num_timesteps=per_runner)), local_env_runner=False)
        sample_rates.append(per_runner * env_runners / (time.perf_counter() - t0))
    train_rates = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        r = algo.train()
        train_rates.append(r["env_runners"]["num_env_steps_sampled"] / (time.perf_counter() - t0))
    algo.stop()
    return {"env_runners": env_runners, "sample_env_steps_per_s": statistics.median(sample_rates),
            "sample_range": [min(sample_rates), max(sample_rates)],
            "train_env_steps_per_s": statistics.median(train_rates),
            "train_range": [min(train_rates), max(train_rates)]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="president")
    ap.add_argument("--address", help="a running Ray instance (default: start one on this machine)")
    ap.add_argument("--num-envs", type=int, default=256, help="matches per worker (default 256)")
    ap.add_argument("--decisions", type=int, default=200_000, help="decisions per round, all workers (default 200k)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--max-workers", type=int, default=2)
    ap.add_argument("--train", action="store_true", help="cardenvs train in one process and on Ray workers")
    ap.add_argument("--train-decisions", type=int, default=150_000)
    ap.add_argument("--rllib", action="store_true", help="RLlib PPO over MultiAgentCardEnv")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)

    import ray

    if args.address:
        ray.init(address=args.address, logging_level="ERROR")
    else:
        ray.init(num_cpus=max(args.max_workers, 2), include_dashboard=False, logging_level="ERROR",
                 log_to_driver=False)
    from cardenvs import get_spec
    from cardenvs.agents.ppo import PolicyNetwork, baseline_path

    figures: dict[str, Any] = {"game": args.game}
    if args.rllib:
        figures["rllib"] = rllib_figures(args.game, 2, 4000, args.rounds)
        print(json.dumps(figures["rllib"], indent=1))
    elif args.train:
        figures["train"] = [train_figures(args.game, 1, args.train_decisions, None)]
        figures["train"].append(train_figures(args.game, args.max_workers, args.train_decisions,
                                              args.address or "local"))
        for row in figures["train"]:
            print(json.dumps(row))
    else:
        policies = {"random": "random",
                    "baseline (sampled, numpy MLP)": PolicyNetwork.load(baseline_path(get_spec(args.game)))}
        figures["rollouts"] = []
        for label, policy in policies.items():
            runs = [("in this process", 1, False)] + [
                (f"{k} Ray worker{'s' if k > 1 else ''}", k, args.address or True)
                for k in range(1, args.max_workers + 1)]
            for where, k, ray_arg in runs:
                row = rollout_figures(args.game, k, args.num_envs, args.decisions, args.rounds, policy, ray_arg)
                row.update(policy=label, where=where)
                figures["rollouts"].append(row)
                print(f"{label:30s} {where:18s} {row['decisions_per_s']:>12,.0f} decisions/s  "
                      f"(range {row['range'][0]:,.0f}-{row['range'][1]:,.0f}; first round {row['first_round_s']:.1f} s,"
                      f" workers built in {row['worker_build_s']} s; {row['result_bytes_per_decision']:.0f} B per "
                      f"decision back, policy {row['policy_bytes']:,} B, state {row['state_bytes_per_worker']:,} B)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1, default=float)
    return 0


if __name__ == "__main__":
    sys.exit(main())
