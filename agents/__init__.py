"""Agents for every cardenvs game, by name: ``make_agent("heuristic", get_spec("president"), seed=0)``.

Names: ``random`` (any game), ``heuristic`` (the game's rule-based player, where the
game has one: see ``HEURISTICS``), ``human`` (a placeholder: the CLI asks a person),
``ppo`` (the trained baseline shipped for the game, where there is one), ``ppo:PATH`` (a
policy written by ``cardenvs train``: its ``policy.npz`` or a checkpoint ``.pt``),
``ppo-sample:PATH`` (the same, sampling its moves instead of taking the most probable);
for Rami 51 also ``scorer`` (the card scorer shipped with the package) and ``scorer:PATH``
(one written by ``cardenvs train scorer rami51``); ``search`` (determinised search over the
heuristic, for a game that can deal its unseen cards anew: see :mod:`cardenvs.agents.search`),
``search:K`` (K deals a decision) and ``search:K:DEPTH`` (rollouts cut after DEPTH decisions;
``search::DEPTH`` keeps the game's K). The search reads the game's state (``reads_state``):
front ends call its ``act_states``.
"""

from __future__ import annotations

import importlib
from typing import Any

from cardenvs.agents.base import Agent
from cardenvs.agents.human import HumanAgent
from cardenvs.agents.random_agent import RandomAgent
from cardenvs.core.protocol import GameSpec

# game name -> "module:Class" of its heuristic; imported on first use so that a game's
# kernels compile only when its heuristic is asked for
HEURISTICS: dict[str, str] = {
    "president": "cardenvs.agents.heuristics.president:PresidentHeuristic",
    "odin": "cardenvs.agents.heuristics.odin:OdinHeuristic",
    "rami51": "cardenvs.agents.heuristics.rami51:Rami51Heuristic",
    "frime": "cardenvs.agents.heuristics.frime:FrimeHeuristic",
    "classes": "cardenvs.agents.heuristics.classes:ClassesHeuristic",
}

AGENT_NAMES = ("random", "heuristic", "human", "ppo", "search")


def has_heuristic(spec: GameSpec) -> bool:
    return spec.name in HEURISTICS


def available_agents(spec: GameSpec) -> list[str]:
    """Agent names usable for this game."""
    from cardenvs.agents.ppo import has_baseline

    searchable = has_search(spec)
    out = [n for n in AGENT_NAMES if (n != "heuristic" or has_heuristic(spec)) and (n != "ppo" or has_baseline(spec))
           and (n != "search" or searchable)]
    out.append("ppo:PATH")
    if searchable:
        out.append("search:K")
    if spec.name == "rami51":
        from cardenvs.agents.rami51_scorer import SHIPPED, SHIPPED_MATCHES

        out += (["scorer"] if SHIPPED.is_file() and SHIPPED_MATCHES.is_file() else []) + ["scorer:PATH"]
    return out


def has_search(spec: GameSpec) -> bool:
    """Whether the ``search`` agent plays the game: it deals the unseen cards anew
    (``deal_unseen_batch``) and plays its rollouts with the game's heuristic."""
    return hasattr(spec.module, "deal_unseen_batch") and has_heuristic(spec)


def heuristic_class(spec: GameSpec) -> type[Agent]:
    if not has_heuristic(spec):
        raise ValueError(f"no heuristic agent for {spec.name!r}; available agents: {', '.join(available_agents(spec))}")
    module, cls = HEURISTICS[spec.name].split(":")
    return getattr(importlib.import_module(module), cls)


def make_agent(name: str, spec: GameSpec, seed: int | None = None, options: dict[str, Any] | None = None) -> Agent:
    """An agent by name for the game ``spec`` (ValueError listing the names if unknown)."""
    key = name.strip().lower()
    if key == "ppo" or key.startswith(("ppo:", "ppo-sample:")):
        from cardenvs.agents.ppo import PPOAgent

        kind, _, path = name.strip().partition(":")
        if kind.lower() == "ppo-sample" and not path:
            raise ValueError("ppo-sample needs a policy file: ppo-sample:PATH")
        return PPOAgent(spec, seed=seed, options=options, policy=path or None, sample=kind.lower() == "ppo-sample")
    if key == "scorer" or key.startswith("scorer:"):
        if spec.name != "rami51":
            raise ValueError(f"the card scorer plays rami51, not {spec.name!r}; available agents: "
                             f"{', '.join(available_agents(spec))}")
        from cardenvs.agents.rami51_scorer import CardScorerAgent

        path = name.strip().partition(":")[2]
        return CardScorerAgent(spec, seed=seed, options=options, scorer=path or None)
    if key == "search" or key.startswith("search:"):
        from cardenvs.agents.search import SearchAgent, parse_search_name

        samples, depth = parse_search_name(key)
        return SearchAgent(spec, seed=seed, options=options, samples=samples, depth=depth)
    if key == "random":
        return RandomAgent(spec, seed=seed, options=options)
    if key == "heuristic":
        return heuristic_class(spec)(spec, seed=seed, options=options)
    if key == "human":
        return HumanAgent(spec, seed=seed, options=options)
    raise ValueError(f"unknown agent {name!r} for {spec.name!r}; available agents: {', '.join(available_agents(spec))}")


__all__ = [
    "AGENT_NAMES",
    "Agent",
    "HEURISTICS",
    "HumanAgent",
    "RandomAgent",
    "available_agents",
    "has_heuristic",
    "has_search",
    "heuristic_class",
    "make_agent",
]
