"""RLlib PPO with action masking on a cardenvs game, one policy for every seat.

    pip install "cardenvs[rllib]"
    python -m cardenvs.integrations.rllib_example --game president --iterations 5
    python -m cardenvs.integrations.rllib_example --address auto      # on a running Ray cluster

Two env runners sample matches of ``MultiAgentCardEnv`` (forced moves played inside the
step, so every decision is a real choice); RLlib's ``ActionMaskingTorchRLModule`` reads
the ``"observations"`` and ``"action_mask"`` keys of each observation.
"""

from __future__ import annotations

import argparse
import time

import ray

from cardenvs.integrations.rllib import action_masking_ppo_config, win_share_against


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="president")
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--env-runners", type=int, default=2)
    ap.add_argument("--address", help="a running Ray instance (default: start one here)")
    args = ap.parse_args()
    ray.init(address=args.address, include_dashboard=False)
    config = action_masking_ppo_config(args.game, env_runners=args.env_runners).training(
        train_batch_size_per_learner=2000, minibatch_size=500, num_epochs=4, lr=3e-4)
    algo = config.build_algo()
    for i in range(args.iterations):
        t0 = time.perf_counter()
        result = algo.train()
        steps = result["env_runners"]["num_env_steps_sampled"]
        # the seats' returns of a zero-sum game add up to 0: RLlib's episode return says nothing
        measured = win_share_against(algo.get_module("shared"), args.game, "random", matches=200)
        print(f"iteration {i + 1}: {steps} env steps in {time.perf_counter() - t0:.1f} s, "
              f"episode length {result['env_runners'].get('episode_len_mean', float('nan')):.0f}, "
              f"greedy policy against random players {measured.share:.1%} "
              f"[{measured.low:.1%}, {measured.high:.1%}] of the wins")
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
