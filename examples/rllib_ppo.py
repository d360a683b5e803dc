"""Tutorial: RLlib's PPO with action masking, one policy shared by every seat.

    python examples/rllib_ppo.py            # 5 training iterations
    python examples/rllib_ppo.py --short    # 1 small iteration (what CI runs, when RLlib is installed)

`MultiAgentCardEnv` gives the player to move `{"observations", "action_mask"}`, the keys
of RLlib's `ActionMaskingTorchRLModule`; forced moves are played inside the step. The
script builds the PPO config of `action_masking_ppo_config`, trains, and asserts that each
iteration sampled env steps and that RLlib's own multi-agent env checks pass. After each
iteration it measures the shared policy's greedy play in one seat against three random
players (`win_share_against`): in a zero-sum game RLlib's `episode_return_mean`, the sum
over the seats, is 0 whatever the policy has learnt.
Needs RLlib (`pip install "cardenvs[rllib]"`, which moves gymnasium to 1.2.2).
"""

import argparse

import ray
from ray.rllib.utils.pre_checks.env import check_multiagent_environments

from cardenvs.integrations.rllib import MultiAgentCardEnv, action_masking_ppo_config, win_share_against

parser = argparse.ArgumentParser()
parser.add_argument("--short", action="store_true", help="one small iteration, for CI")
args = parser.parse_args()
iterations, batch = (1, 400) if args.short else (5, 2000)

check_multiagent_environments(MultiAgentCardEnv({"game": "president", "num_players": 4}))

ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
try:
    config = action_masking_ppo_config("president", env_runners=1, num_players=4).training(
        train_batch_size_per_learner=batch, minibatch_size=min(batch, 500), num_epochs=2, lr=3e-4)
    algo = config.build_algo()
    for i in range(iterations):
        result = algo.train()
        steps = result["env_runners"]["num_env_steps_sampled"]
        measured = win_share_against(algo.get_module("shared"), "president", "random",
                                     matches=50 if args.short else 400, num_players=4)
        print(f"iteration {i + 1}: {steps} env steps sampled; greedy policy against 3 random players: "
              f"{measured.share:.1%} of the wins [{measured.low:.1%}, {measured.high:.1%}] (a random player: "
              f"about 25 %)")
        assert steps > 0 and 0.0 <= measured.share <= 1.0
    algo.stop()
finally:
    ray.shutdown()
