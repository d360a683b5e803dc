"""Tutorial: a CleanRL-style masked PPO loop on the vector env (`LearnerVecEnv`).

    python examples/cleanrl_loop.py            # 60 iterations
    python examples/cleanrl_loop.py --short    # 15 iterations (what CI runs, about 10 s)

One file, no framework: 64 four-player Président rounds run side by side over the numba
core, the learner in one seat of each against three random players, the rest of the
table played in batch inside each step (same-step autoreset). Each iteration collects 32
decisions per match, computes GAE advantages and takes four PPO epochs. Then the greedy
policy and a random player each play 512 rounds in the learner's seat on the same deals;
the script asserts that the policy wins at least 15 points more of them.
"""

import argparse

import numpy as np
import torch

from cardenvs.integrations.gym import LearnerVecEnv

parser = argparse.ArgumentParser()
parser.add_argument("--short", action="store_true", help="a short budget, for CI")
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
N, T, ITERATIONS = 64, 32, (15 if args.short else 60)
MARGIN = 0.15  # the least gain over a random player that this budget reaches (docs/tutorials/cleanrl-loop.md)

torch.set_num_threads(1)
torch.manual_seed(args.seed)
game = dict(opponents="random", num_players=4, single_round=True, scale_observations=True)
env = LearnerVecEnv("president_v0", N, **game)
obs_dim, n_actions = env.single_observation_space.shape[0], env.single_action_space.n
net = torch.nn.Sequential(torch.nn.Linear(obs_dim, 128), torch.nn.Tanh(), torch.nn.Linear(128, n_actions + 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)


def policy(obs, mask):
    """The action distribution over the legal actions, and the value (the last output)."""
    out = net(obs)
    logits = out[:, :-1].masked_fill(~mask, -1e9)
    return torch.distributions.Categorical(logits=logits), out[:, -1]


obs, info = env.reset(seed=args.seed)
obs, mask = torch.as_tensor(obs), torch.as_tensor(info["action_mask"])
for _iteration in range(ITERATIONS):
    buf = {k: [] for k in ("obs", "mask", "act", "logp", "val", "rew", "done")}
    for _ in range(T):
        with torch.no_grad():
            dist, value = policy(obs, mask)
            action = dist.sample()
        next_obs, reward, term, trunc, info = env.step(action.numpy())
        for k, v in zip(buf, (obs, mask, action, dist.log_prob(action), value,
                              torch.as_tensor(reward), torch.as_tensor(term | trunc)), strict=True):
            buf[k].append(v)
        obs, mask = torch.as_tensor(next_obs), torch.as_tensor(info["action_mask"])
    with torch.no_grad():
        _, next_value = policy(obs, mask)
    b = {k: torch.stack(v) for k, v in buf.items()}
    adv, last = torch.zeros(T, N), torch.zeros(N)
    for t in reversed(range(T)):  # GAE; a finished match bootstraps nothing
        nv = next_value if t == T - 1 else b["val"][t + 1]
        nonterminal = 1.0 - b["done"][t].float()
        delta = b["rew"][t] + 0.99 * nv * nonterminal - b["val"][t]
        last = delta + 0.99 * 0.95 * nonterminal * last
        adv[t] = last
    ret = adv + b["val"]
    flat = {k: v.reshape(T * N, *v.shape[2:]) for k, v in b.items()}
    adv_f, ret_f = adv.reshape(-1), ret.reshape(-1)
    for _ in range(4):
        dist, value = policy(flat["obs"], flat["mask"])
        ratio = (dist.log_prob(flat["act"]) - flat["logp"]).exp()
        a = (adv_f - adv_f.mean()) / (adv_f.std() + 1e-8)
        loss = (-torch.min(ratio * a, ratio.clamp(0.8, 1.2) * a).mean()
                + 0.5 * (value - ret_f).pow(2).mean() - 0.01 * dist.entropy().mean())
        opt.zero_grad()
        loss.backward()
        opt.step()


def win_share(choose, rounds: int = 512) -> float:
    """The learner's share of the wins over the first `rounds` rounds finished by `choose`."""
    env = LearnerVecEnv("president_v0", 128, **game)
    obs, info = env.reset(seed=10_000)  # the same deals and seats for both players
    shares = []
    while len(shares) < rounds:
        obs, reward, term, trunc, info = env.step(choose(obs, info["action_mask"]))
        done = info["final_info"]["_win_share"] if "final_info" in info else np.zeros(128, bool)
        shares += list(info["final_info"]["win_share"][done]) if done.any() else []
    return float(np.mean(shares[:rounds]))


def greedy(obs, mask):
    with torch.no_grad():
        dist, _ = policy(torch.as_tensor(obs), torch.as_tensor(mask))
    return dist.probs.argmax(dim=1).numpy()


rng = np.random.default_rng(args.seed)
trained = win_share(greedy)
random_play = win_share(lambda obs, mask: np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
print(f"after {ITERATIONS} iterations ({ITERATIONS * N * T:,} decisions): the policy wins {trained:.1%} "
      f"of the rounds, a random player {random_play:.1%}")
assert trained >= random_play + MARGIN, (trained, random_play)
