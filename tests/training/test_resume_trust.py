"""A checkpoint never decides where a resumed run connects, how many workers it runs or
where it writes: those come from the caller (the command line)."""

from __future__ import annotations

import io

import pytest

torch = pytest.importorskip("torch")

from cardenvs.agents.training.trainer import TrainConfig, Trainer  # noqa: E402


def test_resume_takes_the_ray_address_workers_and_folder_from_the_caller_not_the_checkpoint(tmp_path):
    folder = tmp_path / "run"
    cfg = TrainConfig(game="president", single_round=True, decisions=300, minutes=None, out=str(folder),
                      num_envs=8, rollout_steps=8, minibatch=64, hidden=(8,), eval_matches=2,
                      eval_every_minutes=100.0, snapshot_every=2, torch_threads=1, seed=1)
    Trainer(cfg, out=io.StringIO(), err=io.StringIO()).train()
    path = folder / "checkpoint.pt"
    ckpt = torch.load(path, weights_only=True)
    ckpt["config"].update(ray="attacker.example:6379", workers=4, out=str(tmp_path / "elsewhere"))
    torch.save(ckpt, path)
    trainer = Trainer.resume(folder, out=io.StringIO(), err=io.StringIO())
    assert trainer.cfg.ray is None and trainer.cfg.workers == 1 and trainer.cfg.out == str(folder)
    trainer = Trainer.resume(folder, workers=2, out=io.StringIO(), err=io.StringIO())
    assert trainer.cfg.workers == 2 and trainer.cfg.ray is None
    ckpt["config"]["address"] = "x"
    torch.save(ckpt, path)
    with pytest.raises(ValueError, match="unknown keys \\['address'\\]"):
        Trainer.resume(folder, out=io.StringIO(), err=io.StringIO())
