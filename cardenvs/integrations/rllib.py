"""RLlib: every cardenvs game as a ``ray.rllib.env.MultiAgentEnv`` (RLlib's new API stack).

``MultiAgentCardEnv({"game": "president", ...})`` gives the player to move, and only that
player, an observation dict with the keys RLlib's action-masking module reads
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``):

- ``"observations"``: the game's observation as float32, scaled to [0, 1] by the game's
  bounds (``scale_observations=False`` keeps the raw counts, as float32);
- ``"action_mask"``: float32, 1.0 for each legal action.

The options of the config (all but ``game``) are the game's options and these:

- ``auto_play_forced`` (default True): decisions with a single legal action are played
  inside the step, so that every observation an agent gets is a real choice;
- ``illegal_action`` (default ``"penalty"``): an illegal action ends the match with -1 to
  the player who made it. RLlib's env checker steps random actions without looking at
  the mask; with ``"raise"`` it would fail, with a message that blames the env's API.

Rewards: a player's reward is everything that reached it since its previous decision,
given with its next observation; when the match ends, every player that has decided gets
its last reward and observation, with ``terminateds`` (or ``truncateds`` for a match cut
by ``max_steps``) true for all. Agents are ``player_0 ... player_{n-1}``.

``register(name)`` registers the env with Ray's registry for ``config.environment(name)``.

What to watch while training: the match rewards of a zero-sum game add up to 0 over the
seats, so RLlib's ``episode_return_mean`` (their sum) stays at 0 whatever is learnt, and
with one policy in every seat each seat's own mean is about 0 too.
:func:`win_share_against` measures the learnt module against fixed players instead: its
greedy choices in one seat, random or heuristic players in the others.
"""

from __future__ import annotations

import copy
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from cardenvs import make_raw
from cardenvs.core.outcome import wilson_interval
from cardenvs.core.protocol import check_action, check_flag, check_positive_int, check_reset_options
from cardenvs.core.registry import get_spec
from cardenvs.integrations.gym import _scale


class MultiAgentCardEnv(MultiAgentEnv):
    """One match of a cardenvs game at a time, turn by turn, for RLlib (see the module doc)."""

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = dict(config or {})  # RLlib passes an EnvContext, a dict
        if "game" not in config:
            raise ValueError("the env config needs a game, e.g. {'game': 'president'}")
        self.spec = get_spec(config.pop("game"))
        self.scale_observations = check_flag("scale_observations", config.pop("scale_observations", True))
        self._first_seed = config.pop("seed", None)
        self.env = make_raw(self.spec.env_id, illegal_action=config.pop("illegal_action", "penalty"),
                            auto_play_forced=config.pop("auto_play_forced", True), **config)
        game = self.spec.module
        low, high = game.observation_bounds(self.env._template)
        self._low, self._high = float(low), float(high)
        obs_low, obs_high = (0.0, 1.0) if self.scale_observations else (float(low), float(high))
        space = gym.spaces.Dict({
            "observations": gym.spaces.Box(obs_low, obs_high, (game.OBS_SIZE,), np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (game.NUM_ACTIONS,), np.float32),
        })
        self.possible_agents = list(self.env.possible_agents)
        self.agents = list(self.possible_agents)
        self._agent_ids = set(self.possible_agents)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(game.NUM_ACTIONS) for a in self.possible_agents}
        # the whole-env spaces as well: RLlib's checker looks for them before it checks anything
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)
        self._pending = dict.fromkeys(self.possible_agents, 0.0)
        self._decided: set[str] = set()

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        raw = self.env.observe(agent)
        obs = raw["observation"]
        obs = _scale(obs, self._low, self._high) if self.scale_observations else obs.astype(np.float32)
        return {"observations": obs, "action_mask": raw["action_mask"].astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """A new match, or ``options={"scenario": d}``; a scenario refused or a finished
        match raises ValueError and leaves the env as it was."""
        scenario = check_reset_options(options).get("scenario")
        first_seed = self._first_seed
        if seed is None and self._first_seed is not None:
            seed, self._first_seed = self._first_seed, None
        before = copy.deepcopy(self.env) if scenario is not None else None
        try:
            self.env.reset(seed=seed, options=options)
            if scenario is not None and self._finished():
                which = "terminated" if any(self.env.terminations.values()) else "truncated"
                raise ValueError(f"scenario {which!r}: the match is over, an episode needs a decision to make")
        except BaseException:
            self._first_seed = first_seed
            if before is not None:
                self.env = before
            raise
        self._pending = dict.fromkeys(self.possible_agents, 0.0)
        self._decided = set()
        while self._finished():  # a deal that ends at once: deal again
            self.env.reset()
        agent = self.env.agent_selection
        return {agent: self._observe(agent)}, {agent: {}}

    def _finished(self) -> bool:
        return any(self.env.terminations.values()) or any(self.env.truncations.values())

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        agent = self.env.agent_selection
        if agent not in action_dict:
            raise ValueError(f"{agent} is to move, and the action dict has no action for it: {sorted(action_dict)}")
        # 1.9, "1", True or 0.5 would be read as another action: refused, never int()
        self.env.step(check_action(action_dict[agent], self.env.action_space(agent).n, f"the action of {agent}"))
        self._decided.add(agent)
        for a, r in self.env.rewards.items():
            self._pending[a] += r
        if self._finished():
            terminated = all(self.env.terminations.values())
            done = sorted(self._decided)
            obs = {a: self._observe(a) for a in done}
            rewards = {a: self._pending[a] for a in done}
            infos = {a: dict(self.env.infos[a]) for a in done}
            terminateds = {**dict.fromkeys(done, terminated), "__all__": terminated}
            truncateds = {**dict.fromkeys(done, not terminated), "__all__": not terminated}
            return obs, rewards, terminateds, truncateds, infos
        nxt = self.env.agent_selection
        reward, self._pending[nxt] = self._pending[nxt], 0.0
        return ({nxt: self._observe(nxt)}, {nxt: reward}, {"__all__": False}, {"__all__": False}, {nxt: {}})


def register(name: str = "cardenvs") -> str:
    """Register :class:`MultiAgentCardEnv` with Ray's env registry under ``name``
    (then ``config.environment(name, env_config={"game": ...})``); returns the name."""
    from ray.tune.registry import register_env

    register_env(name, MultiAgentCardEnv)
    return name


def action_masking_ppo_config(game: str, env_runners: int = 2, **env_config: Any) -> Any:
    """A ``PPOConfig`` for ``game`` with RLlib's action-masking module, one policy shared
    by every seat, ``env_runners`` sampling processes: a starting point to edit."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    return (
        PPOConfig()
        .environment(MultiAgentCardEnv, env_config={"game": game, **env_config})
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [64, 64]}),
        }))
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1)
    )


#: decisions after which ``win_share_against`` cuts a match short (counted as truncated, left
#: out of the share): an untrained policy among random players can void rummy rounds for long
EVAL_MAX_STEPS = 25_000


class WinShare(NamedTuple):
    """A measured win share: over the ``finished`` matches, with its 95 % Wilson interval
    (low, high), and the matches cut short by ``EVAL_MAX_STEPS`` (left out of it)."""

    share: float
    low: float
    high: float
    finished: int
    truncated: int


def greedy_actions(module: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The action-masking module's most likely legal action for each row of
    ``observations`` (K, OBS_SIZE; as the env gives them) and ``masks`` (K, NUM_ACTIONS,
    bool). The module's own forward pass, on CPU (as an env runner's module is);
    env-to-module connectors of a config (a mean-std filter ...) are not applied."""
    import torch

    masks = np.asarray(masks, dtype=np.bool_)
    batch = {"obs": {"observations": torch.as_tensor(observations, dtype=torch.float32),
                     "action_mask": torch.as_tensor(masks, dtype=torch.float32)}}
    with torch.no_grad():
        logits = module.forward_inference(batch)["action_dist_inputs"].numpy().copy()
    logits[~masks] = -np.inf
    return logits.argmax(axis=1)


def win_share_against(module: Any, game: str | dict[str, Any], opponents: str = "random", matches: int = 200,
                      seed: int = 0, **options: Any) -> WinShare:
    """The module's share of the wins (a tie's win shared) over ``matches`` matches, its
    greedy action in one seat (drawn per match), ``opponents`` (``"random"`` or
    ``"heuristic"``) in the others. ``game``: a game's name, or the env config the module
    was trained on (``config.env_config``: the game and its options, ``scale_observations``);
    ``options`` add to it. A match still going after ``EVAL_MAX_STEPS`` decisions
    (``max_steps`` sets another cap) is cut short and left out. ``module``:
    ``algo.get_module("shared")`` for the config of :func:`action_masking_ppo_config`."""
    # LearnerVecEnv plays the matches, not cardenvs.agents.evaluate: the adapters sit below the agents
    from cardenvs.integrations.gym import LearnerVecEnv

    matches = check_positive_int("matches", matches)
    if isinstance(game, dict):  # an env config: its game and options
        config = dict(game)
        if "game" not in config:
            raise ValueError("the env config needs a game, e.g. {'game': 'president'}")
        game, options = config.pop("game"), {**config, **options}
    spec = get_spec(game)
    scale = check_flag("scale_observations", options.pop("scale_observations", True))
    for key in ("seed", "illegal_action", "auto_play_forced"):  # the env's, not the game's
        options.pop(key, None)
    options.setdefault("max_steps", EVAL_MAX_STEPS)
    env = LearnerVecEnv(spec.env_id, matches, opponents=opponents, seed=seed, scale_observations=scale,
                        illegal_action="raise", **options)
    obs, info = env.reset(seed=seed)
    shares = np.full(matches, np.nan)
    cut = np.zeros(matches, dtype=np.bool_)
    while np.isnan(shares).any():
        obs, _, terminated, truncated, info = env.step(greedy_actions(module, obs, info["action_mask"]))
        ended = (terminated | truncated) & np.isnan(shares)
        if ended.any():
            shares[ended] = info["final_info"]["win_share"][ended]
            cut[ended] = truncated[ended]
    finished = int((~cut).sum())
    share = float(shares[~cut].mean()) if finished else float("nan")
    low, high = wilson_interval(share, finished)
    return WinShare(share, low, high, finished, int(cut.sum()))
