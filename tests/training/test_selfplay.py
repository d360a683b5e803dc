"""Per-seat advantages over interleaved turns, against a brute-force definition."""


import numpy as np
import pytest

from cardenvs.agents.training.selfplay import seat_advantages


def _brute_force(rewards, values, players, dones, last_values, gamma, lam):
    """GAE written from its definition: for decision t of seat q, list q's later decisions
    in the same match, the rewards q gets in each span, and sum (gamma*lam)^k * delta_k."""
    T, N, P = rewards.shape
    adv = np.zeros((T, N))
    for n in range(N):
        for t in range(T):
            q = players[t, n]
            chain = [t]  # q's decisions from t on, in this match
            end_of_match = None
            u = t
            while u < T:
                if dones[u, n]:
                    end_of_match = u
                    break
                u += 1
                if u < T and players[u, n] == q:
                    chain.append(u)
            total = 0.0
            for k, tk in enumerate(chain):
                stop = chain[k + 1] if k + 1 < len(chain) else (end_of_match + 1 if end_of_match is not None else T)
                span_reward = rewards[tk:stop, n, q].sum()
                if k + 1 < len(chain):
                    next_value = values[chain[k + 1], n]
                elif end_of_match is not None:
                    next_value = 0.0
                else:
                    next_value = last_values[n, q]
                delta = span_reward + gamma * next_value - values[tk, n]
                total += (gamma * lam) ** k * delta
            adv[t, n] = total
    return adv


@pytest.mark.parametrize("seed", range(6))
def test_seat_advantages_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    T, N, P = 40, 5, int(rng.integers(2, 6))
    rewards = np.where(rng.random((T, N, P)) < 0.2, rng.normal(size=(T, N, P)), 0.0).astype(np.float32)
    values = rng.normal(size=(T, N)).astype(np.float32)
    players = rng.integers(P, size=(T, N))
    dones = rng.random((T, N)) < 0.08
    last_values = rng.normal(size=(N, P)).astype(np.float32)
    gamma, lam = 0.97, 0.9
    adv, ret = seat_advantages(rewards, values, players, dones, last_values, gamma, lam)
    expected = _brute_force(rewards, values, players, dones, last_values, gamma, lam)
    np.testing.assert_allclose(adv, expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ret, adv + values, rtol=1e-6)


def test_seat_advantages_checks_shapes():
    with pytest.raises(ValueError, match="values"):
        seat_advantages(np.zeros((3, 2, 4)), np.zeros((3, 3)), np.zeros((3, 2), int), np.zeros((3, 2), bool))
    with pytest.raises(ValueError, match="players"):
        seat_advantages(np.zeros((3, 2, 4)), np.zeros((3, 2)), np.full((3, 2), 4), np.zeros((3, 2), bool))
