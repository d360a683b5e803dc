"""The actor and critic networks of the PPO trainer (torch), and its checkpoint file: what
``ppo:PATH`` with a ``checkpoint.pt`` needs (torch is imported for that file only;
``policy.npz`` plays with numpy alone)."""

from __future__ import annotations

import math
import os
from typing import Any

CHECKPOINT_FORMAT = "cardenvs-ppo-checkpoint/1"


def _torch():
    try:
        import torch
    except ImportError:  # pragma: no cover - depends on the install
        raise ImportError("training needs torch: pip install 'cardenvs[train]'") from None
    return torch


def actor_input_size(obs_size: int, num_actions: int, heuristic_input: bool) -> int:
    """The actor's input: the normalised observation, then (a residual policy) the
    heuristic's move as a one-hot over the actions."""
    return obs_size + (num_actions if heuristic_input else 0)


def build_networks(obs_size: int, num_actions: int, hidden: tuple[int, ...], activation: str, *,
                   heuristic_input: bool = False, critic_inputs: int | None = None):
    """(actor, critic): two MLPs over the normalised observation (the actor of a residual
    policy also reads the heuristic's move: :func:`actor_input_size`; a privileged critic
    reads ``critic_inputs`` values, every seat's view)."""
    torch = _torch()
    nn = torch.nn
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]

    def mlp(in_size: int, out_size: int, out_gain: float) -> Any:
        layers: list[Any] = []
        size = in_size
        for h in hidden:
            lin = nn.Linear(size, h)
            nn.init.orthogonal_(lin.weight, math.sqrt(2))
            nn.init.zeros_(lin.bias)
            layers += [lin, act()]
            size = h
        last = nn.Linear(size, out_size)
        nn.init.orthogonal_(last.weight, out_gain)
        nn.init.zeros_(last.bias)
        return nn.Sequential(*layers, last)

    return (mlp(actor_input_size(obs_size, num_actions, heuristic_input), num_actions, 0.01),
            mlp(obs_size if critic_inputs is None else critic_inputs, 1, 1.0))


def load_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """A checkpoint, read with torch's safe loader (tensors, numpy arrays and plain data
    only: a checkpoint from elsewhere cannot run code)."""
    torch = _torch()
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:
        raise ValueError(f"cannot read {str(path)!r} as a cardenvs training checkpoint: {e}") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{str(path)!r} is not a cardenvs training checkpoint")
    return ckpt
