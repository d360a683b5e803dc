"""The self-play PPO trainer, trained agents (ppo:PATH) and `cardenvs eval`/`train`."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cardenvs import get_spec, make_vec  # noqa: E402
from cardenvs.agents import make_agent  # noqa: E402
from cardenvs.agents.evaluate import evaluate  # noqa: E402
from cardenvs.agents.networks import build_networks  # noqa: E402
from cardenvs.agents.ppo import PolicyNetwork, PPOAgent  # noqa: E402
from cardenvs.agents.training.trainer import TrainConfig, Trainer  # noqa: E402
from cardenvs.cli.main import main  # noqa: E402
from cardenvs.core.vector import RandomSampler  # noqa: E402

SPEC = get_spec("president")


def tiny(out, **kw) -> TrainConfig:
    base = dict(game="president", single_round=True, decisions=3000, minutes=None, out=str(out), num_envs=16,
                rollout_steps=16, minibatch=256, hidden=(32, 32), eval_matches=8, eval_every_minutes=100.0,
                snapshot_every=2, torch_threads=1, seed=3, teacher_until=0.25)
    base.update(kw)
    return TrainConfig(**base)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run")
    result = Trainer(tiny(folder), out=io.StringIO(), err=io.StringIO()).train()
    return folder, result


def test_a_run_writes_its_files_and_counts_its_decisions(trained):
    folder, result = trained
    for name in ("config.json", "metrics.csv", "eval.csv", "checkpoint.pt", "policy.npz"):
        assert (folder / name).is_file(), name
    rows = list(csv.DictReader(open(folder / "metrics.csv")))
    assert len(rows) == result["iterations"] >= 2
    assert int(rows[-1]["decisions"]) == result["decisions"] >= 3000
    evals = list(csv.DictReader(open(folder / "eval.csv")))
    assert [int(r["iteration"]) for r in evals] == [0, result["iterations"]]  # at the start and at the end
    assert json.loads((folder / "config.json").read_text())["game"] == "president_v0"
    assert set(result["times"]) == {"env", "opponents", "inference", "advantages", "update", "eval"}


def test_a_runs_pull_toward_the_heuristic_lasts_the_whole_budget_by_default(tmp_path):
    config = TrainConfig(game="president", out=str(tmp_path))
    assert config.heuristic_input is False and config.teacher_until == 1.0
    # a checkpoint saved before these defaults (without the keys) resumes as it ran
    folder = tmp_path / "old"
    Trainer(tiny(folder, decisions=600), out=io.StringIO(), err=io.StringIO()).train()
    ckpt = torch.load(folder / "checkpoint.pt", weights_only=False)
    del ckpt["config"]["teacher_until"]
    torch.save(ckpt, folder / "checkpoint.pt")
    resumed = Trainer.resume(folder, decisions=1200, out=io.StringIO(), err=io.StringIO())
    assert resumed.cfg.teacher_until == 0.25


def test_the_numpy_policy_is_the_trained_actor(trained):
    folder, _ = trained
    ckpt = torch.load(folder / "checkpoint.pt", weights_only=True)
    actor, _ = build_networks(SPEC.module.OBS_SIZE, SPEC.module.NUM_ACTIONS, (32, 32), "tanh")
    actor.load_state_dict(ckpt["actor"])
    policy = PolicyNetwork.load(folder / "policy.npz")
    obs = make_vec("president", 64, seed=1, single_round=True).reset().observation
    mean, std = ckpt["obs_mean"].numpy().astype(np.float32), ckpt["obs_std"].numpy()
    x = np.clip((obs - mean) / std, -5, 5).astype(np.float32)
    with torch.no_grad():
        expected = actor(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(policy.logits(obs), expected, rtol=1e-4, atol=1e-5)
    # the checkpoint itself is a policy file too
    np.testing.assert_allclose(PolicyNetwork.load(folder / "checkpoint.pt").logits(obs), expected, rtol=1e-4,
                               atol=1e-5)


@pytest.mark.parametrize("name", ["ppo:{}", "ppo-sample:{}"])
def test_trained_agents_play_only_legal_moves(trained, name):
    folder, _ = trained
    agent = make_agent(name.format(folder / "policy.npz"), SPEC, seed=0, options={"single_round": True})
    assert isinstance(agent, PPOAgent) and agent.sample == name.startswith("ppo-sample")
    env = make_vec("president", 128, seed=2, single_round=True, illegal_action="raise")
    st = env.reset()
    sampler = RandomSampler(1)
    for t in range(200):  # the env raises on an illegal action
        actions = agent.act_batch(st.observation, st.legal_action_mask) if t % 2 else sampler(st.legal_action_mask)
        st = env.step(actions)
    one = agent.act(st.observation[0], st.legal_action_mask[0])
    assert st.legal_action_mask[0, one]


def test_a_policy_for_another_game_is_refused(trained):
    folder, _ = trained
    with pytest.raises(ValueError, match="trained on president_v0, not odin_v1"):
        make_agent(f"ppo:{folder / 'policy.npz'}", get_spec("odin"))
    with pytest.raises(ValueError, match="no policy file"):
        make_agent(f"ppo:{folder / 'missing.npz'}", SPEC)
    with pytest.raises(ValueError, match="cannot read the policy file"):
        make_agent(f"ppo:{folder / 'config.json'}", SPEC)


def test_same_seed_same_run(tmp_path):
    """A run replays: the same config gives the same weights (one torch thread)."""
    weights = []
    for k in range(2):
        Trainer(tiny(tmp_path / f"r{k}", decisions=1000), out=io.StringIO(), err=io.StringIO()).train()
        weights.append(PolicyNetwork.load(tmp_path / f"r{k}" / "policy.npz").weights)
    for a, b in zip(*weights, strict=True):
        np.testing.assert_array_equal(a, b)


def test_resume_continues_the_run(tmp_path):
    folder = tmp_path / "run"
    first = Trainer(tiny(folder, decisions=1500), out=io.StringIO(), err=io.StringIO()).train()
    trainer = Trainer.resume(folder, decisions=3000, out=io.StringIO(), err=io.StringIO())
    assert trainer.iteration == first["iterations"] and trainer.decisions == first["decisions"]
    assert len(trainer.pool) == len(torch.load(folder / "checkpoint.pt", weights_only=True)["pool"])
    second = trainer.train()
    assert second["decisions"] >= 3000 and second["iterations"] > first["iterations"]
    rows = list(csv.DictReader(open(folder / "metrics.csv")))
    assert [int(r["iteration"]) for r in rows] == list(range(1, second["iterations"] + 1))


def test_a_folder_with_a_run_is_refused_and_resume_takes_a_new_budget(trained, tmp_path):
    folder, result = trained
    with pytest.raises(ValueError, match="holds a run already"):
        Trainer(tiny(folder)).train()
    run = tmp_path / "budget"
    Trainer(tiny(run, decisions=800), out=io.StringIO(), err=io.StringIO()).train()
    trainer = Trainer.resume(run, minutes=0.05, out=io.StringIO(), err=io.StringIO())
    assert trainer.cfg.decisions is None and trainer.cfg.minutes == 0.05  # the new budget replaces both
    assert trainer.train()["decisions"] > 800


def test_bad_policy_files_are_refused(tmp_path):
    for name, content in (("garbage.npz", b"not a zip"), ("garbage.pt", b"not a checkpoint")):
        (tmp_path / name).write_bytes(content)
        with pytest.raises(ValueError, match="cannot read"):
            make_agent(f"ppo:{tmp_path / name}", SPEC)
    np.save(tmp_path / "array.npy", np.zeros(3))
    (tmp_path / "array.npy").rename(tmp_path / "array.npz")
    with pytest.raises(ValueError, match="cannot read"):
        make_agent(f"ppo:{tmp_path / 'array.npz'}", SPEC)


def test_bad_configs_are_refused(tmp_path):
    with pytest.raises(ValueError, match="num_envs"):
        Trainer(tiny(tmp_path, num_envs=0))
    with pytest.raises(ValueError, match="budget"):
        Trainer(tiny(tmp_path, decisions=None, minutes=None))
    with pytest.raises(ValueError, match="shares"):
        Trainer(tiny(tmp_path, table_self=0.8, table_heuristic=0.5))
    with pytest.raises(ValueError, match="teacher_until"):
        Trainer(tiny(tmp_path, teacher_until=-1.0))
    with pytest.raises(ValueError, match="heuristic_input"):
        Trainer(tiny(tmp_path, heuristic_input="yes"))
    err = io.StringIO()
    assert main(["train", "ppo", "--resume", str(tmp_path), "--players", "5"], io.StringIO(), err) == 2
    assert "drop --players" in err.getvalue()
    err = io.StringIO()
    assert main(["train", "ppo", "--resume", str(tmp_path), "--teacher-until", "0", "--heuristic-input"],
                io.StringIO(), err) == 2
    assert "drop --heuristic-input, --teacher-until" in err.getvalue()
    with pytest.raises(ValueError, match="teacher_coef"):
        Trainer(tiny(tmp_path, teacher_coef=float("nan")))
    with pytest.raises(ValueError, match="no checkpoint"):
        Trainer.resume(tmp_path / "nothing")


def test_evaluate_counts_truncated_matches_apart():
    spec = get_spec("rami51")
    agents = [make_agent("random", spec, seed=k) for k in range(2)]
    res = evaluate(spec, agents, 40, seed=1, options={"max_steps": 150})
    assert all(r.truncated == res[0].truncated for r in res) and 0 < res[0].truncated <= 40
    finished = 40 - res[0].truncated
    if finished:
        assert res[0].finished == finished
        assert sum(r.wins for r in res) == pytest.approx(finished)
        assert sum(r.win_rate for r in res) == pytest.approx(1.0)


def test_the_runs_evaluation_cuts_endless_matches_short(tmp_path, monkeypatch):
    # whole President matches last about 700 decisions: a cap of 50 cuts every one short
    import cardenvs.agents.training.trainer as train

    monkeypatch.setattr(train, "EVAL_MAX_STEPS", 50)
    trainer = Trainer(tiny(tmp_path / "cap", single_round=False), out=io.StringIO(), err=io.StringIO())
    out = trainer.evaluate(8)
    assert out["vs_heuristic_truncated"] == out["vs_random_truncated"] == 8
    assert all(np.isnan(out[f"vs_{k}_{end}"]) for k in ("heuristic", "random") for end in ("low", "high"))
    # a cap the run sets itself stays, 0 (no cap) included
    trainer = Trainer(tiny(tmp_path / "own", single_round=False, options={"max_steps": 0}),
                      out=io.StringIO(), err=io.StringIO())
    out = trainer.evaluate(8)
    assert out["vs_heuristic_truncated"] == out["vs_random_truncated"] == 0


def test_a_runs_evaluation_reports_a_wilson_interval_also_at_100_percent():
    from cardenvs.agents.training.trainer import share_text

    full = {"vs_random": 1.0, "vs_random_ci": 0.0, "vs_random_low": 0.9964, "vs_random_high": 1.0}
    assert share_text(full, "random", 4) == "vs 3 random 100.0% [99.6%, 100.0%]"
    assert share_text({"vs_random": 0.5, "vs_random_ci": 0.031}, "random", 2) == "vs 1 random 50.0% ± 3.1%"


def test_cli_eval_reports_shares_intervals_and_the_score_sense():
    out, err = io.StringIO(), io.StringIO()
    assert main(["eval", "odin", "--agents", "heuristic,random", "--matches", "24", "--batch", "10"], out, err) == 0
    text = out.getvalue()
    assert "seats heuristic,random,random,random" in text
    assert "24 matches" in text and "lower is better" in text
    assert re.search(r"\d+\.\d% \(\d+\.\d-\d+\.\d\)", text)  # the share and its Wilson interval
    lines = [ln for ln in text.splitlines() if ln.strip().startswith(("1 ", "2 ", "3 ", "4 "))]
    assert len(lines) == 4
    assert main(["eval", "odin", "--agents", "a,b,c,d,e", "--matches", "4"], io.StringIO(), err) == 2
    assert "5 agents for 4 seats" in err.getvalue()
    for option, message in (("num_players=4.0", "num_players must be an integer"),
                            ("target_score=1.5", "target_score must be an integer")):
        err = io.StringIO()
        assert main(["eval", "odin", "--agents", "random", "--option", option], io.StringIO(), err) == 2
        assert message in err.getvalue()


def test_cli_eval_rotation_matches_one_batch():
    """Played in batches, the matches are dealt and seated as in one batch: the same figures
    (deterministic players: a random player's draws depend on its calls)."""
    outs = []
    for batch in ("13", "5"):
        out = io.StringIO()
        assert main(["eval", "president", "--agents", "heuristic", "--matches", "13", "--batch", batch,
                     "--option", "single_round=true"], out, io.StringIO()) == 0
        outs.append([ln for ln in out.getvalue().splitlines() if "heuristic" in ln and "% (" in ln])
    assert len(outs[0]) == 4 and outs[0] == outs[1]
    assert len({ln.split()[2] for ln in outs[0]}) > 1  # seats differ: the test can tell a shifted rotation


def test_cli_train_and_play_a_trained_agent(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    folder = tmp_path / "cli-run"
    code = main(["train", "ppo", "president", "--decisions", "800", "--single-round", "--num-envs", "8",
                 "--eval-matches", "4", "--out", str(folder), "--threads", "1"], out, err)
    assert code == 0, err.getvalue()
    assert "policy:" in out.getvalue() and (folder / "policy.npz").is_file()
    play_out = io.StringIO()
    code = main(["play", "president", "--agents", f"ppo:{folder / 'policy.npz'},heuristic", "--games", "2",
                 "--seed", "1", "--option", "single_round=true"], play_out, io.StringIO())
    assert code == 0 and "ppo:" in play_out.getvalue()
    err = io.StringIO()
    assert main(["train", "ppo"], io.StringIO(), err) == 2 and "needs a game" in err.getvalue()


def test_tensorboard_gets_the_scalars_when_installed(tmp_path, monkeypatch):
    import cardenvs.agents.training.trainer as train_module

    logged: list[tuple[str, float, int]] = []

    class Writer:
        def add_scalar(self, tag, value, step):
            logged.append((tag, float(value), int(step)))

        def close(self):
            logged.append(("closed", 0.0, 0))

    monkeypatch.setattr(train_module, "tensorboard_writer", lambda folder: Writer())
    Trainer(tiny(tmp_path, decisions=600), out=io.StringIO(), err=io.StringIO()).train()
    tags = {t for t, _, _ in logged}
    assert {"loss/policy_loss", "speed/samples_per_s", "eval/vs_heuristic", "eval/vs_random"} <= tags
    assert logged[-1][0] == "closed"


@pytest.mark.parametrize("installed", [False, True])
def test_the_run_says_whether_tensorboard_logs(tmp_path, monkeypatch, installed):
    import cardenvs.agents.training.trainer as train_module

    class Writer:
        def add_scalar(self, tag, value, step):
            pass

        def close(self):
            pass

    monkeypatch.setattr(train_module, "tensorboard_writer", lambda folder: Writer() if installed else None)
    out = io.StringIO()
    Trainer(tiny(tmp_path, decisions=200), out=out, err=io.StringIO()).train()
    if installed:
        assert f"TensorBoard: tensorboard --logdir {tmp_path}" in out.getvalue()
    else:
        assert "TensorBoard: not installed, so no event files (pip install tensorboard)" in out.getvalue()


def test_a_trained_agent_plays_the_aec_env_and_is_a_gymnasium_opponent(trained):
    import gymnasium

    import cardenvs

    folder, _ = trained
    name = f"ppo:{folder / 'policy.npz'}"
    agent = make_agent(name, SPEC, options={"single_round": True})
    env = cardenvs.make("president_v0", single_round=True)
    env.reset(seed=4)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else agent.act(obs["observation"], obs["action_mask"])
        env.step(action)
    assert not env.agents  # a whole match, every move legal (the env raises otherwise)
    gym_env = gymnasium.make("cardenvs/president-v0", opponents=name, single_round=True)
    obs, info = gym_env.reset(seed=0)
    done = False
    while not done:
        obs, reward, term, trunc, info = gym_env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = term or trunc
    assert "win_share" in info


def test_eval_plays_a_policy_in_the_setup_it_was_trained_for(trained):
    folder, _ = trained
    out = io.StringIO()
    code = main(["eval", "president", "--agents", f"ppo:{folder / 'policy.npz'},heuristic", "--matches", "8"],
                out, io.StringIO())
    assert code == 0 and "the policy's setup: num_players=4, single_round=True" in out.getvalue()


def test_a_residual_policy_reads_the_heuristics_move(tmp_path):
    """--heuristic-input: the actor's input is the normalised observation and the heuristic's
    move one-hot; the numpy policy computes the same logits, plays only legal moves in the
    vector and AEC envs, through a checkpoint and on rollout workers, and resumes."""
    from cardenvs.agents.ppo import heuristic_hints, one_hot
    from cardenvs.agents.training.distributed import rollouts

    folder = tmp_path / "residual"
    Trainer(tiny(folder, decisions=1500, heuristic_input=True), out=io.StringIO(), err=io.StringIO()).train()
    policy = PolicyNetwork.load(folder / "policy.npz")
    assert policy.heuristic_input and policy.meta["heuristic_input"] is True
    ckpt = torch.load(folder / "checkpoint.pt", weights_only=True)
    n_obs, n_act = SPEC.module.OBS_SIZE, SPEC.module.NUM_ACTIONS
    actor, critic = build_networks(n_obs, n_act, (32, 32), "tanh", heuristic_input=True)
    actor.load_state_dict(ckpt["actor"])
    critic.load_state_dict(ckpt["critic"])  # the critic reads the observation alone
    st = make_vec("president", 64, seed=1, single_round=True).reset()
    hints = heuristic_hints(policy, SPEC, {"single_round": True})(st.observation, st.legal_action_mask)
    heuristic = make_agent("heuristic", SPEC, options={"single_round": True})
    np.testing.assert_array_equal(hints, heuristic.act_batch(st.observation, st.legal_action_mask))
    mean, std = ckpt["obs_mean"].numpy().astype(np.float32), ckpt["obs_std"].numpy()
    x = np.clip((st.observation - mean) / std, -5, 5).astype(np.float32)
    with torch.no_grad():
        expected = actor(torch.from_numpy(np.concatenate([x, one_hot(hints, n_act)], axis=1))).numpy()
    np.testing.assert_allclose(policy.logits(st.observation, hints), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(PolicyNetwork.load(folder / "checkpoint.pt").logits(st.observation, hints),
                               expected, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="pass hints"):
        policy.logits(st.observation)
    # as an agent: legal moves only (the env raises otherwise), in the vector and AEC envs
    agent = make_agent(f"ppo:{folder / 'policy.npz'}", SPEC, options={"single_round": True})
    env = make_vec("president", 64, seed=2, single_round=True, illegal_action="raise")
    st = env.reset()
    for _ in range(100):
        st = env.step(agent.act_batch(st.observation, st.legal_action_mask))
    import cardenvs

    e = cardenvs.make("president", single_round=True)
    e.reset(seed=4)
    for _ in e.agent_iter(max_iter=300):
        obs, _, term, trunc, _ = e.last()
        action = None if term or trunc else agent.act(obs["observation"], obs["action_mask"])
        assert action is None or obs["action_mask"][action]
        e.step(action)
    # sampled on rollout workers, in this process
    batch = rollouts("president", policy, workers=2, decisions=400, ray=False, single_round=True)
    assert batch["action"].size and (batch["action"] >= 0).all()
    # resumes with its own input width
    trainer = Trainer.resume(folder, decisions=2500, out=io.StringIO(), err=io.StringIO())
    assert trainer.actor_inputs == n_obs + n_act
    trainer.train()


@pytest.mark.parametrize("heuristic_input", [False, True])
def test_the_pools_batched_pass_gives_each_snapshots_own_logits(tmp_path, heuristic_input):
    # every snapshot's rows through one batched pass: the same logits as that snapshot's
    # own actor, and moves that are legal; after a snapshot is replaced, its new weights
    trainer = Trainer(tiny(tmp_path, heuristic_input=heuristic_input, pool_size=3), out=io.StringIO())
    trainer.start_matches()

    def perturb():  # the next snapshot differs from the last
        for p in trainer.actor.parameters():
            p.data += 0.05 * torch.randn_like(p)

    for _ in range(3):
        trainer._rollout(teaching=False)
        trainer._snapshot()
        perturb()
    st = trainer.state
    obs, masks = st.observation, st.legal_action_mask
    rows = np.arange(len(obs))
    groups = [(k, rows[k::3]) for k in range(3)]
    trainer._snapshot_logits(groups, obs, masks)  # the stack of these three is made
    trainer._snapshot()  # the pool is full: this one replaces one of the three

    def own_logits(k, sel):
        snap = trainer.pool[k]
        x = trainer.stats.normalise(obs[sel], snap["mean"], snap["std"])
        x = trainer._actor_input(x, obs[sel], masks[sel])
        with torch.no_grad():
            return snap["actor"](torch.from_numpy(x)).masked_fill(~torch.from_numpy(masks[sel]), -1e9).numpy()

    logits = trainer._snapshot_logits(groups, obs, masks).numpy()
    for k, sel in groups:
        np.testing.assert_allclose(logits[k, :sel.size], own_logits(k, sel), rtol=1e-4, atol=1e-4)
        other = trainer.pool[(k + 1) % 3]
        x = trainer._actor_input(trainer.stats.normalise(obs[sel], other["mean"], other["std"]), obs[sel], masks[sel])
        with torch.no_grad():
            theirs = other["actor"](torch.from_numpy(x)).numpy()
        legal = masks[sel]
        assert not np.allclose(logits[k, :sel.size][legal], theirs[legal], atol=1e-4)  # not another one's weights
    actions = np.full(len(obs), -1, dtype=np.int64)
    who = 2 + rows % 3
    trainer._opponent_actions(rows, who, obs, masks, actions)
    assert masks[rows, actions].all()


def test_a_privileged_critic_reads_every_seat_from_its_own_on(tmp_path):
    # the critic's input for a seat is every seat's view from that seat on; a run trains
    # with it, on worker processes too, and its policy still reads one observation
    config = tiny(tmp_path / "run", privileged_critic=True, decisions=1500)
    trainer = Trainer(config, out=io.StringIO())
    assert trainer.critic_inputs == trainer.P * trainer.obs_size
    trainer.start_matches()
    st = trainer.state
    assert st.privileged_observation is not None
    rows = np.arange(5)
    seats = np.array([0, 1, 2, 3, 1]) % trainer.P
    got = trainer._seat_views(st.privileged_observation[rows], seats)
    for i, (n, p) in enumerate(zip(rows, seats, strict=True)):
        views = [trainer.env.observe((p + j) % trainer.P)[n] for j in range(trainer.P)]
        np.testing.assert_allclose(got[i], trainer.stats.normalise(np.stack(views)).reshape(-1))
    batch = trainer._rollout(teaching=False)
    assert batch["critic_obs"].shape == (len(batch["act"]), trainer.P * trainer.obs_size)
    # row by row the sample's own: its first block is the actor's (normalised) observation
    np.testing.assert_array_equal(batch["critic_obs"][:, :trainer.obs_size], batch["obs"][:, :trainer.obs_size])
    result = trainer.train()
    assert result["decisions"] >= 1500
    policy = PolicyNetwork.load(tmp_path / "run" / "policy.npz")
    assert policy.weights[0].shape[0] == trainer.obs_size  # the actor reads one observation (in, out)
    resumed = Trainer.resume(tmp_path / "run", decisions=2500, out=io.StringIO(), err=io.StringIO())
    assert resumed.cfg.privileged_critic and resumed.critic_inputs == trainer.critic_inputs
    assert resumed.train()["decisions"] >= 2500
    with pytest.raises(ValueError, match="privileged_critic must be True or False"):
        Trainer(tiny(tmp_path / "bad", privileged_critic="yes"), out=io.StringIO())
    # on two worker processes
    two = Trainer(tiny(tmp_path / "two", privileged_critic=True, decisions=600, workers=2), out=io.StringIO())
    assert two.train()["decisions"] >= 600


def test_a_privileged_critic_bootstraps_a_cut_match_from_every_final_view(tmp_path):
    # a match cut short adds gamma * V(every seat's final view, from the learner's seat on)
    import types

    trainer = Trainer(tiny(tmp_path, privileged_critic=True), out=io.StringIO())
    trainer.start_matches()
    N, P, size = trainer.cfg.num_envs, trainer.P, trainer.obs_size
    final = np.random.default_rng(0).normal(size=(N, P, size)).astype(np.float32)
    truncated = np.zeros(N, dtype=bool)
    truncated[[1, 4]] = True
    rewards = np.zeros((N, P), dtype=np.float32)
    trainer._bootstrap_truncated(rewards, types.SimpleNamespace(truncated=truncated, final_observation=final))
    expected = np.zeros((N, P), dtype=np.float32)
    for n in (1, 4):
        for p in range(P):
            if trainer.ctrl[n, p] == -1:  # a learner's seat
                x = trainer.stats.normalise(final[n, [(p + j) % P for j in range(P)]]).reshape(1, -1)
                with torch.no_grad():
                    expected[n, p] = trainer.cfg.gamma * float(trainer.critic(torch.from_numpy(x)))
    assert (expected != 0).any()
    np.testing.assert_allclose(rewards, expected, rtol=1e-5, atol=1e-6)
