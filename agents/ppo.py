"""Trained agents: a policy network written by ``cardenvs train``, played with numpy.

A policy file (``policy.npz``) holds the actor network of a run and the observation
statistics it was trained with; the agent runs it with numpy alone, so playing a trained
agent needs no torch. It acts greedily (the most probable legal action) unless
``sample=True``. ``make_agent("ppo:PATH", spec)`` loads one (``PATH`` may also be a
training checkpoint ``.pt``, which needs torch); ``make_agent("ppo", spec)`` loads the
baseline shipped for the game (see ``BASELINES``).

File format (``cardenvs-policy/1``): ``meta`` (a JSON string: ``format``, ``env_id``,
``num_players``, ``options``, ``activation``, ``layers``), ``obs_mean`` and ``obs_std``
(``OBS_SIZE`` float32: the input is ``clip((obs - mean) / std, -5, 5)``), and
``w0, b0, w1, b1, ...``: ``layers`` dense layers, ``x @ w + b``, the activation between
them, the last one giving ``NUM_ACTIONS`` logits. With ``heuristic_input`` true in the
meta (``cardenvs train ppo --heuristic-input``), the input also holds the game's heuristic
player's move in the same position, one-hot over ``NUM_ACTIONS`` after the normalised
observation: the network learns when to play it and when to play something else. Such
a policy may also carry ``hint_bonus`` in the meta (``cardenvs train search``):
that much is added to the heuristic's move's logit, so that it is kept unless another
move scores higher by more than the bonus. Such a policy's outputs are the values of
moves, not logits of probabilities: it plays greedily only (``ppo-sample`` refuses it).
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cardenvs.agents.base import Agent, check_mask
from cardenvs.agents.networks import build_networks, load_checkpoint
from cardenvs.core.protocol import GameSpec
from cardenvs.core.registry import get_spec

POLICY_FORMAT = "cardenvs-policy/1"
OBS_CLIP = 5.0
#: folder of the shipped baselines: ``<game name>.npz``
BASELINES = Path(__file__).resolve().parent / "baselines"


def save_npz(path: str | os.PathLike, meta: dict[str, Any], **arrays: np.ndarray) -> None:
    """A weights file: ``meta`` as a JSON string and the arrays, compressed, written whole
    (a reader never sees half a file)."""
    tmp = Path(f"{path}.tmp.npz")
    np.savez_compressed(tmp, meta=np.array(json.dumps(meta)), **arrays)
    os.replace(tmp, path)


class PolicyNetwork:
    """The actor of a trained run: normalisation, dense layers, masked choice (numpy)."""

    def __init__(self, meta: dict[str, Any], obs_mean: np.ndarray, obs_std: np.ndarray, weights: list[np.ndarray]):
        if meta.get("format") != POLICY_FORMAT:
            raise ValueError(f"not a cardenvs policy (format {meta.get('format')!r}, expected {POLICY_FORMAT!r})")
        if meta.get("activation") not in ("tanh", "relu"):
            raise ValueError(f"policy: unknown activation {meta.get('activation')!r}")
        self.meta = meta
        if "hint_bonus" in meta:
            bonus = meta["hint_bonus"]
            try:
                ok = not isinstance(bonus, bool) and isinstance(bonus, (int, float)) and 0 <= float(bonus) < 1e30
            except OverflowError:
                ok = False
            if not ok:
                raise ValueError(f"policy: hint_bonus must be a number in [0, 1e30), got {bonus!r}")
            if not self.heuristic_input:
                raise ValueError("policy: hint_bonus needs heuristic_input (it is added to the heuristic's move)")
        self.obs_mean = np.asarray(obs_mean, dtype=np.float32)
        self.inv_std = (1.0 / np.asarray(obs_std, dtype=np.float32)).astype(np.float32)
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in weights]
        if len(self.weights) % 2 or not self.weights:
            raise ValueError("policy: expected pairs of weights and biases")
        size = self.obs_mean.shape[0] + (self.weights[-1].shape[-1] if self.heuristic_input else 0)
        for k in range(0, len(self.weights), 2):  # the layers chain: (in, out) then (out,)
            w, b = self.weights[k], self.weights[k + 1]
            if w.ndim != 2 or w.shape[0] != size or b.shape != (w.shape[1],):
                raise ValueError(f"policy: layer {k // 2} has shapes {w.shape} and {b.shape} after {size} inputs")
            size = w.shape[1]
        std = np.asarray(obs_std, dtype=np.float32)
        if std.shape != self.obs_mean.shape or not (std > 0).all():
            raise ValueError("policy: the observation std must be positive, one per input")
        if not all(np.isfinite(w).all() for w in [self.obs_mean, std, *self.weights]):
            raise ValueError("policy: weights and statistics must be finite")

    @property
    def env_id(self) -> str:
        return str(self.meta.get("env_id"))

    def game_options(self) -> dict[str, Any]:
        """The game the policy was trained for, as env options: its players and options,
        without the reward mode it trained with (it is evaluated on the match outcome)."""
        opts = {k: v for k, v in self.meta.get("options", {}).items() if k != "reward_mode"}
        opts["num_players"] = self.meta["num_players"]
        return opts

    @property
    def heuristic_input(self) -> bool:
        """Whether the network also reads the heuristic player's move (``hints``)."""
        return bool(self.meta.get("heuristic_input", False))

    def logits(self, observations: np.ndarray, hints: np.ndarray | None = None) -> np.ndarray:
        """Logits for a batch of observations; ``hints``: the heuristic's moves in the same
        positions, for a policy with ``heuristic_input`` (see :func:`heuristic_hints`)."""
        x = (np.asarray(observations, dtype=np.float32) - self.obs_mean) * self.inv_std
        np.clip(x, -OBS_CLIP, OBS_CLIP, out=x)
        if self.heuristic_input:
            if hints is None:
                raise ValueError("this policy reads the heuristic's move: pass hints (see heuristic_hints)")
            x = np.concatenate([x, one_hot(hints, self.weights[-1].shape[-1])], axis=1)
        n_layers = len(self.weights) // 2
        for k in range(n_layers):
            x = x @ self.weights[2 * k] + self.weights[2 * k + 1]
            if k < n_layers - 1:
                x = np.tanh(x) if self.meta["activation"] == "tanh" else np.maximum(x, 0.0)
        bonus = self.hint_bonus
        if bonus:
            rows = np.flatnonzero(np.asarray(hints) >= 0)
            x[rows, np.asarray(hints)[rows]] += bonus
        return x

    @property
    def hint_bonus(self) -> float:
        """What the heuristic's move adds to its logit (0 unless the policy says)."""
        return float(self.meta.get("hint_bonus", 0.0)) if self.heuristic_input else 0.0

    def save(self, path: str | os.PathLike) -> None:
        arrays = {f"{'w' if i % 2 == 0 else 'b'}{i // 2}": w for i, w in enumerate(self.weights)}
        save_npz(path, self.meta, obs_mean=self.obs_mean, obs_std=(1.0 / self.inv_std).astype(np.float32), **arrays)

    @classmethod
    def load(cls, path: str | os.PathLike) -> PolicyNetwork:
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"no policy file at {str(path)!r}")
        if path.suffix == ".pt":  # a training checkpoint: its policy, read with torch
            try:

                return load_checkpoint_policy(path)
            except ImportError as e:
                raise ValueError(f"reading a checkpoint needs torch ({e}); its policy.npz does not") from None
        try:
            data = np.load(path, allow_pickle=False)
            if not isinstance(data, np.lib.npyio.NpzFile):
                raise ValueError("not an .npz archive")
            with data:
                meta = json.loads(str(data["meta"]))
                if not isinstance(meta, dict):
                    raise ValueError("meta is not a mapping")
                n = sum(1 for k in data.files if k.startswith("w"))
                weights = []
                for k in range(n):
                    weights += [data[f"w{k}"], data[f"b{k}"]]
                return cls(meta, data["obs_mean"], data["obs_std"], weights)
        except Exception as e:  # a corrupt archive, missing arrays, bad meta ...
            raise ValueError(f"cannot read the policy file {str(path)!r}: {e}") from None


class PPOAgent(Agent):
    """A trained policy: greedy over the legal actions, or sampled (``sample=True``, seeded)."""

    name = "ppo"

    def __init__(
        self,
        spec: GameSpec,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
        policy: PolicyNetwork | str | os.PathLike | None = None,
        sample: bool = False,
    ):
        super().__init__(spec, seed, options)
        if policy is None:
            policy = baseline_path(spec)
        if not isinstance(policy, PolicyNetwork):
            policy = PolicyNetwork.load(policy)
        self._convert = observation_converter(policy, spec)
        size = self.observation_size
        if self._convert is not None:
            size = self._convert(np.zeros((1, size), dtype=np.float32)).shape[1]
        if policy.weights[-1].shape[0] != self.num_actions or policy.obs_mean.shape[0] != size:
            raise ValueError(f"the policy's sizes do not match {spec.env_id}")
        for key in ("num_players", "single_round"):  # a policy is trained for one setup of its game
            trained = policy.meta.get(key) if key == "num_players" else policy.meta.get("options", {}).get(key, False)
            given = self.options.get(key, spec.default_players if key == "num_players" else False)
            if trained is not None and given != trained:
                warnings.warn(f"the policy was trained with {key}={trained}, and plays with {key}={given}",
                              stacklevel=2)
        if sample and "hint_bonus" in policy.meta:
            raise ValueError("this policy's outputs are the values of moves (cardenvs train search), "
                             "not probabilities: play it greedily (ppo:PATH, not ppo-sample:PATH)")
        self.policy = policy
        self.sample = bool(sample)
        self._rng = np.random.default_rng(seed)
        self._hinter = heuristic_hints(policy, spec, self.options)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = check_mask(action_mask)
        return int(self._choose(np.asarray(observation)[None], mask[None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=np.bool_)
        out = np.full(masks.shape[0], -1, dtype=np.int64)
        live = masks.any(axis=1)
        if live.any():
            out[live] = self._choose(np.asarray(observations)[live], masks[live])
        return out

    def _choose(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        hints = None if self._hinter is None else self._hinter(observations, masks)
        if self._convert is not None:
            observations = self._convert(observations)
        logits = self.policy.logits(observations, hints)
        logits[~masks] = -np.inf
        if not self.sample:
            return logits.argmax(axis=1)
        z = logits - logits.max(axis=1, keepdims=True)
        p = np.exp(z)
        cum = np.cumsum(p, axis=1)
        u = (1.0 - self._rng.random(len(cum)))[:, None] * cum[:, -1:]  # in (0, 1]: never an illegal index
        return np.minimum((cum < u).sum(axis=1), masks.shape[1] - 1)


def one_hot(actions: np.ndarray, size: int) -> np.ndarray:
    """Rows of ``size`` float32 zeros with a 1 at each action (none for an action of -1)."""
    actions = np.asarray(actions, dtype=np.int64)
    out = np.zeros((actions.shape[0], size), dtype=np.float32)
    live = actions >= 0
    out[np.flatnonzero(live), actions[live]] = 1.0
    return out


def heuristic_hints(policy: PolicyNetwork, spec: GameSpec,
                    options: dict[str, Any] | None = None) -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
    """For a policy with ``heuristic_input``: ``f(observations, masks)``, the game's heuristic
    player's moves (its own player, deterministic) to pass as ``hints``; None otherwise."""
    if not policy.heuristic_input:
        return None
    from cardenvs.agents import make_agent

    heuristic = make_agent("heuristic", spec, seed=0, options=options)
    return heuristic.act_batch


def observation_converter(policy: PolicyNetwork, spec: GameSpec) -> Callable[[np.ndarray], np.ndarray] | None:
    """How ``policy`` reads ``spec``'s observations: None when it was trained on this
    version or on an earlier one with the same observation, else the function that turns
    this version's rows into its own layout (``spec.earlier_versions``). ValueError when
    it was trained on another game."""
    if policy.env_id == spec.env_id:
        return None
    if policy.env_id not in spec.earlier_versions:
        raise ValueError(f"the policy was trained on {policy.env_id}, not {spec.env_id}")
    return spec.earlier_versions[policy.env_id]


def baseline_path(spec: GameSpec) -> Path:
    """The shipped baseline policy of a game (ValueError if it has none)."""
    path = BASELINES / f"{spec.name}.npz"
    if not path.is_file():
        have = sorted(p.stem for p in BASELINES.glob("*.npz"))
        raise ValueError(f"no shipped ppo baseline for {spec.name!r} (baselines: {', '.join(have) or 'none'}); "
                         "train one with `cardenvs train ppo GAME` and use ppo:PATH")
    return path


def has_baseline(spec: GameSpec) -> bool:
    return (BASELINES / f"{spec.name}.npz").is_file()


# --------------------------------------------------------------------------- from torch
def policy_network(actor: Any, stats_mean: np.ndarray, stats_std: np.ndarray, meta: dict[str, Any]):
    """The actor as a numpy :class:`cardenvs.agents.ppo.PolicyNetwork` (what ``policy.npz`` holds)."""
    weights = []
    for module in actor:
        if hasattr(module, "weight"):
            weights += [module.weight.detach().cpu().numpy().T.copy(), module.bias.detach().cpu().numpy().copy()]
    meta = {"format": POLICY_FORMAT, **meta, "layers": len(weights) // 2}
    return PolicyNetwork(meta, stats_mean.astype(np.float32), stats_std.astype(np.float32), weights)


def load_checkpoint_policy(path: str | os.PathLike):
    """The policy of a training checkpoint (``checkpoint.pt``)."""
    ckpt = load_checkpoint(path)
    cfg = ckpt["config"]
    spec = get_spec(cfg["game"])
    n_obs, n_act = spec.module.OBS_SIZE, spec.module.NUM_ACTIONS
    actor, _ = build_networks(n_obs, n_act, tuple(cfg["hidden"]), cfg["activation"],
                              heuristic_input=bool(cfg.get("heuristic_input", False)))
    actor.load_state_dict(ckpt["actor"])
    return policy_network(actor, ckpt["obs_mean"].numpy(), ckpt["obs_std"].numpy(), ckpt["policy_meta"])
