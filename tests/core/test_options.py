"""The options schema: one per game, read from make_template, enforced by every front end."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.cli.main import main
from cardenvs.core.protocol import options_schema
from cardenvs.core.registry import GAMES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"
WRONG = {  # per kind: values of another type that a lax check would read as something else
    "bool": ["no", 1, 0, 1.0, None],
    "int": [True, 2.0, "4", np.float64(3.0)],
    "float": [True, "30", float("nan"), float("inf"), 10**400],
    "str": [1, True, b"match"],
}
CASES = [(spec.name, opt) for spec in GAMES.values() for opt in options_schema(spec.module).values()]


@pytest.mark.parametrize("game,option", CASES, ids=[f"{g}-{o.name}" for g, o in CASES])
def test_an_option_of_the_wrong_type_is_refused_naming_it(game, option):
    for value in WRONG[option.kind]:
        if value is None and option.optional:
            continue
        for build in (lambda **kw: cardenvs.make_vec(game, 2, **kw), lambda **kw: cardenvs.make_raw(game, **kw)):
            with pytest.raises(TypeError, match=f"{game}: option {option.name} must be"):
                build(**{option.name: value})


@pytest.mark.parametrize("spec", GAMES.values(), ids=lambda s: s.name)
def test_an_unknown_option_names_the_game_and_the_valid_ones(spec):
    names = ", ".join(options_schema(spec.module))
    for build in (lambda: cardenvs.make_vec(spec.name, 2, bogus=1), lambda: cardenvs.make(spec.env_id, bogus=1)):
        with pytest.raises(ValueError, match=re.escape(f"{spec.name}: unknown option 'bogus'; options: {names}")):
            build()


def test_an_integer_option_must_fit_its_field():
    with pytest.raises(ValueError, match="option max_steps must be in -2,147,483,648 .. 2,147,483,647"):
        cardenvs.make_vec("president", 2, max_steps=2**31)
    cardenvs.make_vec("president", 2, max_steps=2**31 - 1, decks=np.int64(1))  # numpy integers are integers


def _documented_options(spec) -> dict[str, str]:
    text = (DOCS / f"{spec.name}.md").read_text()
    section = text[text.index("## Options"):]
    section = section[: section.find("\n## ", 4)] if "\n## " in section[4:] else section
    rows = {}
    for line in section.splitlines():
        m = re.match(r"\| `(\w+)` \| ([^|]*) \|", line)
        if m:
            rows[m.group(1)] = m.group(2).strip()
    return rows


def _doc_default(value) -> str:
    if isinstance(value, bool):
        return f"`{value}`"
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@pytest.mark.parametrize("spec", GAMES.values(), ids=lambda s: s.name)
def test_the_docs_options_table_is_the_schema(spec):
    documented = _documented_options(spec)
    schema = options_schema(spec.module)
    assert list(schema) == [n for n in documented if n in schema] and set(schema) <= set(documented)
    for name, opt in schema.items():
        if opt.default is not None:
            assert documented[name].startswith(_doc_default(opt.default)), (name, documented[name])


def test_the_cli_reads_options_by_the_schema():
    err = io.StringIO()
    assert main(["play", "president", "--option", "single_round=maybe", "--games", "1", "--seed", "1"],
                io.StringIO(), err) == 2
    assert "single_round takes true or false" in err.getvalue()
    err = io.StringIO()
    assert main(["play", "president", "--option", "target_score=2.5", "--seed", "1"], io.StringIO(), err) == 2
    assert "target_score must be an integer" in err.getvalue()
    err = io.StringIO()
    assert main(["play", "president", "--seed", "-1"], io.StringIO(), err) == 2
    assert "--seed must be >= 0" in err.getvalue()


@pytest.mark.parametrize("bad,error", [({"num_envs": 2.5}, TypeError), ({"seed": -1}, ValueError),
                                       ({"seed": 1.5}, TypeError), ({"num_threads": "2"}, TypeError),
                                       ({"auto_reset": "no"}, TypeError)])
def test_vector_env_arguments_are_checked_when_built(bad, error):
    args = {"num_envs": 2, **bad}
    with pytest.raises(error, match=next(iter(bad))):
        cardenvs.make_vec("odin", **args)


def test_seeds_are_checked_by_both_envs():
    venv = cardenvs.make_vec("odin", 2)
    with pytest.raises(ValueError, match="seed"):
        venv.reset(seed=-3)
    with pytest.raises(ValueError, match="seeds must be integers"):
        venv.reset(seeds=np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="not both"):
        venv.reset(seed=1, seeds=[1, 2])
    env = cardenvs.make_raw("odin")
    with pytest.raises(TypeError, match="seed must be an integer"):
        env.reset(seed="7")


@pytest.mark.parametrize("spec", GAMES.values(), ids=lambda s: s.name)
def test_a_vector_env_pickles_and_deep_copies_with_its_state_and_options(spec):
    import copy
    import pickle

    from cardenvs.core.vector import RandomSampler

    venv = cardenvs.make_vec(spec.name, 4, seed=3, auto_play_forced=True, single_round=True)
    sampler = RandomSampler(2)
    st = venv.reset()
    for _ in range(15):
        st = venv.step(sampler(st.legal_action_mask))
    copies = [pickle.loads(pickle.dumps(venv)), copy.deepcopy(venv)]
    assert all(c.auto_play_forced and c.spec is venv.spec for c in copies)
    for _ in range(30):  # the copies go on exactly as the original, auto-resets (new deals) included
        actions = sampler(st.legal_action_mask)
        st = venv.step(actions)
        for c in copies:
            other = c.step(actions)
            for a, b in zip(st, other, strict=True):
                if a is not None:
                    np.testing.assert_array_equal(a, b)
    before = copies[1].states.copy()
    venv.step(sampler(st.legal_action_mask))
    assert (copies[1].states == before).all()  # a copy does not share the original's arrays


def test_registration_checks_the_game_protocol():
    import dataclasses
    import types

    from cardenvs.core.registry import register

    spec = GAMES["odin_v1"]
    bare = types.ModuleType("cardenvs.games.bare")
    with pytest.raises(ValueError, match="does not follow the game protocol: missing STATE_DTYPE, MAX_PLAYERS"):
        register(dataclasses.replace(spec, name="bare", env_id="bare_v0", module=bare))
    assert "bare_v0" not in GAMES
    with pytest.raises(ValueError, match="score_sense"):
        register(dataclasses.replace(spec, name="x", env_id="x_v0", score_sense="up"))
