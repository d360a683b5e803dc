"""Golden playthroughs: the recorded play of tests/golden/ is replayed exactly.

A failure names the first differing step. If the change is intended, regenerate with
``python -m tests.golden --write``; a change to the rules or the observations must also
bump the env id (``_v0`` -> ``_v1``) with a line in the game page's version history.
See tests/golden/playthroughs.py.
"""

import pytest

from tests.golden import playthroughs as golden


@pytest.mark.parametrize("env_id", golden.GAMES)
def test_playthrough_matches_the_golden_file(env_id):
    text, _ = golden.playthrough(env_id)
    msg = golden.compare_text(golden.read_text(env_id), text, f"tests/golden/{env_id}.txt")
    assert msg is None, msg


@pytest.mark.parametrize("name", list(golden.vec_configs()))
def test_random_play_digest_matches(name):
    recorded = golden.read_digests().get("vec", {}).get(name)
    msg = golden.compare_vec(recorded, golden.vec_record(name), name)
    assert msg is None, msg


@pytest.mark.parametrize("env_id", golden.GAMES)
def test_all_agents_observation_digest_matches(env_id):
    recorded = golden.read_digests().get("aec_all_agents", {}).get(env_id)
    msg = golden.compare_aec_digest(recorded, golden.playthrough(env_id)[1], env_id)
    assert msg is None, msg


# ---------------------------------------------------------------------------------------- the check can fail
def test_a_changed_step_is_reported_with_its_step_and_the_way_to_regenerate():
    text, _ = golden.playthrough("odin_v1")
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("step 57 "))
    changed = lines[:i] + [lines[i].replace("obs=", "obs=0")] + lines[i + 1:]
    msg = golden.compare_text("\n".join(changed) + "\n", text, "odin_v1.txt")
    assert msg is not None
    assert "at step 57" in msg and "seed=11" in msg
    assert golden.REGENERATE in msg and "bump the env id" in msg
    # a change in a table view names the step it follows
    j = next(k for k in range(i, len(lines)) if lines[k].startswith("    "))
    changed = lines[:j] + [lines[j] + " "] + lines[j + 1:]
    msg = golden.compare_text("\n".join(changed) + "\n", text, "odin_v1.txt")
    assert msg is not None and "after step" in msg
    # a missing line, and a missing file
    assert golden.compare_text("\n".join(lines[:-1]) + "\n", text, "odin_v1.txt") is not None
    assert golden.REGENERATE in golden.compare_text(None, text, "odin_v1.txt")
    assert golden.compare_text(text, text, "odin_v1.txt") is None


def test_a_wrong_digest_is_reported_with_its_batch_step():
    name = "odin_v1/2p"
    actual = golden.vec_record(name)
    steps = actual["step_digests"].split()
    for k in (0, 13):
        wrong = dict(actual)
        wrong["step_digests"] = " ".join(steps[:k] + ["00000000"] + steps[k + 1:])
        wrong["sha256"] = "0" * 64
        msg = golden.compare_vec(wrong, actual, name)
        assert msg is not None and golden.REGENERATE in msg
        assert ("at the reset" in msg) if k == 0 else ("batch step 13" in msg)
    wrong = dict(actual, sha256="f" * 64)  # only the overall digest edited
    assert "edited" in golden.compare_vec(wrong, actual, name)
    assert golden.compare_vec(dict(actual), actual, name) is None
    assert golden.compare_aec_digest("0" * 64, golden.playthrough("odin_v1")[1], "odin_v1") is not None


def test_a_different_policy_changes_the_record():
    """The records depend on the play: another seed gives another playthrough."""
    seed, options = golden.CASES["odin_v1"][0]
    a, digest_a = golden.play_case("odin_v1", seed, options)
    b, digest_b = golden.play_case("odin_v1", seed + 1000, options)
    assert digest_a != digest_b and a[3:] != b[3:]
