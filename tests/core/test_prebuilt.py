"""Kernels prebuilt for a portable CPU (cardenvs.core.prebuilt): used only for the kernel
sources, numba, Python and CPU they were built for; a changed kernel source never runs a
prebuilt kernel."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cardenvs.core import jitcache, prebuilt

ROOT = Path(__file__).resolve().parents[2]


def good_manifest() -> dict:
    return prebuilt.manifest_for(jitcache.kernel_stamp(), ["president"])


@pytest.fixture
def clean_env(monkeypatch):
    from numba.core import config

    for name in (prebuilt.SWITCH_ENV, prebuilt.BUILD_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(config, "CPU_NAME", None)
    monkeypatch.setattr(config, "CPU_FEATURES", None)


@pytest.mark.parametrize("field, value, reason", [
    ("kernel_stamp", "0" * 64, "other kernel sources"),
    ("numba", "0.1.0", "numba 0.1.0"),
    ("python", "2.7", "Python 2.7"),
    ("triple", "aarch64-apple-darwin", "aarch64-apple-darwin"),
    ("cpu", "generic", "CPU model generic"),
    ("cpu", "x86-64-v2", "CPU model x86-64-v2"),  # an install's kernels from before the move to v3
    ("format", 99, "another format"),
])
def test_a_manifest_of_other_sources_or_tools_is_not_used(clean_env, field, value, reason):
    manifest = good_manifest()
    manifest[field] = value
    assert reason in prebuilt.why_unused(manifest, jitcache.kernel_stamp())


def test_other_numba_settings_are_not_served(clean_env, monkeypatch):
    from numba.core import config

    monkeypatch.setattr(config, "BOUNDSCHECK", 1)  # NUMBA_BOUNDSCHECK=1: not in numba's cache key
    assert "settings differ" in prebuilt.why_unused(good_manifest() | {"settings": {}}, jitcache.kernel_stamp())
    manifest = good_manifest()
    monkeypatch.setattr(config, "BOUNDSCHECK", 0)
    assert "settings differ" in prebuilt.why_unused(manifest, jitcache.kernel_stamp())
    monkeypatch.setattr(config, "CPU_FEATURES", "+avx2")  # the user's own CPU features
    assert "which CPU" in prebuilt.why_unused(good_manifest(), jitcache.kernel_stamp())


def test_a_manifest_with_missing_or_wrong_fields_is_none(tmp_path):
    (tmp_path / prebuilt.MANIFEST_NAME).write_text(json.dumps({**good_manifest(), "games": "president"}))
    assert prebuilt.read_manifest(tmp_path) is None
    manifest = good_manifest()
    del manifest["kernel_stamp"]
    (tmp_path / prebuilt.MANIFEST_NAME).write_text(json.dumps(manifest))
    assert prebuilt.read_manifest(tmp_path) is None
    (tmp_path / prebuilt.MANIFEST_NAME).write_text("[1, 2")
    assert prebuilt.read_manifest(tmp_path) is None
    (tmp_path / prebuilt.MANIFEST_NAME).write_text(json.dumps(good_manifest()))
    assert prebuilt.read_manifest(tmp_path) == good_manifest()


def test_switches_and_a_missing_manifest(clean_env, monkeypatch):
    stamp = jitcache.kernel_stamp()
    assert prebuilt.why_unused(None, stamp) == "none are installed"
    monkeypatch.setenv(prebuilt.SWITCH_ENV, "0")
    assert prebuilt.why_unused(good_manifest(), stamp) == f"{prebuilt.SWITCH_ENV}=0"
    monkeypatch.delenv(prebuilt.SWITCH_ENV)
    from numba.core import config

    monkeypatch.setattr(config, "CPU_NAME", "generic")  # NUMBA_CPU_NAME: the user's own choice of CPU wins
    assert "which CPU" in prebuilt.why_unused(good_manifest(), stamp)


def test_a_matching_manifest_is_used_on_a_capable_cpu(clean_env):
    if not prebuilt.host_has_target():
        pytest.skip(f"this CPU cannot run {prebuilt.TARGET_CPU} code")
    assert prebuilt.why_unused(good_manifest(), jitcache.kernel_stamp()) is None


@pytest.mark.parametrize("missing", ["avx2", "bmi2", "popcnt"])
def test_a_cpu_without_an_extension_of_the_target_compiles_its_own(clean_env, monkeypatch, missing):
    from llvmlite import binding as ll

    if not ll.get_process_triple().startswith("x86_64"):
        pytest.skip("an x86-64 process only")
    full = {name: True for name in prebuilt.TARGET_FEATURES}
    monkeypatch.setattr(ll, "get_host_cpu_features", lambda: full)
    assert prebuilt.why_unused(good_manifest(), jitcache.kernel_stamp()) is None
    monkeypatch.setattr(ll, "get_host_cpu_features", lambda: full | {missing: False})
    assert not prebuilt.host_has_target()
    assert "lacks an extension" in prebuilt.why_unused(good_manifest(), jitcache.kernel_stamp())


def test_folder_names_are_the_same_in_a_checkout_and_a_wheel(tmp_path):
    package, agents = tmp_path / "cardenvs", tmp_path / "agents"
    assert prebuilt.module_dir_key(str(package / "games/president/rules.py"), package, agents) == "games.president"
    assert prebuilt.module_dir_key(str(package / "agents/heuristics/odin.py"), package, agents) == "agents.heuristics"
    assert prebuilt.module_dir_key(str(agents / "heuristics/odin.py"), package, agents) == "agents.heuristics"
    assert prebuilt.module_dir_key(str(package / "bits.py"), package, agents) == "_"
    with pytest.raises(ValueError):
        prebuilt.module_dir_key(str(tmp_path / "elsewhere/x.py"), package, agents)


def test_the_stamp_names_files_as_installed():
    names = [jitcache._installed_name(p) for p in jitcache.kernel_sources()]
    assert names == sorted(names)
    assert all(n.startswith("cardenvs/") for n in names)
    assert "cardenvs/core/vector.py" in names
    assert any(n.startswith("cardenvs/agents/") for n in names)


# ---------------------------------------------------------------- end to end, in a copy
CHILD = """
import json, sys
import numpy as np
from cardenvs.core import prebuilt
from cardenvs.core.jitcache import kernel_stamp
from cardenvs.core.vector import RandomSampler, _sample_legal
masks = np.ones((64, 9), dtype=np.bool_)
masks[::3, 4:] = False
actions = RandomSampler(7)(masks)
print(json.dumps({"loads": prebuilt.loads, "actions": actions.tolist(), "status": prebuilt.status(kernel_stamp()),
                  "misses": sum(_sample_legal.stats.cache_misses.values())}))
"""


def run_child(copy: Path, cache: Path, **env: str) -> dict:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "CARDENVS_"))}
    environ.update(PYTHONPATH=str(copy), NUMBA_CACHE_DIR=str(cache), **env)
    done = subprocess.run([sys.executable, "-c", CHILD], env=environ, cwd=copy, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_changed_kernel_source_never_runs_a_prebuilt_kernel(tmp_path):
    if not prebuilt.host_has_target():
        pytest.skip(f"this CPU cannot run {prebuilt.TARGET_CPU} code")
    copy = tmp_path / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "prebuilt", "*.nbi", "*.nbc")
    for folder in ("cardenvs", "agents"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", copy)
    built = tmp_path / "prebuilt"

    # build: the child's kernel compiled for the portable CPU into the prebuilt layout
    first = run_child(copy, tmp_path / "cache-build", NUMBA_CPU_NAME=prebuilt.TARGET_CPU, NUMBA_CPU_FEATURES="",
                      **{prebuilt.BUILD_ENV: str(built)})
    assert first["misses"] >= 1 and first["loads"] == 0
    stamp = subprocess.run([sys.executable, "-c", "from cardenvs.core.jitcache import kernel_stamp; "
                            "print(kernel_stamp())"], env={**os.environ, "PYTHONPATH": str(copy)}, cwd=copy,
                           capture_output=True, text=True, check=True).stdout.strip()
    manifest = prebuilt.manifest_for(stamp, ["president"])
    (built / prebuilt.MANIFEST_NAME).write_text(json.dumps(manifest))
    assert list(built.rglob("*.nbi")), "the build wrote no prebuilt kernel"

    # a fresh cache: the prebuilt kernel runs, nothing is compiled, the same actions
    used = run_child(copy, tmp_path / "cache-1", **{prebuilt.DIR_ENV: str(built)})
    assert used["loads"] >= 1 and used["misses"] == 0, used
    assert used["actions"] == first["actions"]
    assert not list((tmp_path / "cache-1").rglob("*.nbi")), "a prebuilt kernel was compiled again"

    # switched off: compiled for this machine instead
    off = run_child(copy, tmp_path / "cache-2", **{prebuilt.DIR_ENV: str(built), prebuilt.SWITCH_ENV: "0"})
    assert off["loads"] == 0 and off["misses"] >= 1 and off["actions"] == first["actions"]

    # a damaged folder (every index garbage): passed over with one line on stderr, compiled
    damaged = tmp_path / "damaged"
    shutil.copytree(built, damaged)
    for index in damaged.rglob("*.nbi"):
        index.write_bytes(b"\x80\x04not a pickle")
    broken = run_child(copy, tmp_path / "cache-5", **{prebuilt.DIR_ENV: str(damaged)})
    assert broken["loads"] == 0 and broken["misses"] >= 1 and broken["actions"] == first["actions"]

    # one kernel file edited anywhere (a comment in a file the sampler never calls):
    # the prebuilt kernels are stale, the sampler compiles from the new sources
    bits = copy / "cardenvs" / "core" / "bits.py"
    bits.write_text(bits.read_text() + "\n# edited after the build\n")
    edited = run_child(copy, tmp_path / "cache-3", **{prebuilt.DIR_ENV: str(built)})
    assert edited["loads"] == 0 and edited["misses"] >= 1, edited
    assert "other kernel sources" in edited["status"]
    assert edited["actions"] == first["actions"]

    # even with the manifest's stamp forged to the new sources, each index keeps the old
    # stamp: numba's own check refuses it
    new_stamp = subprocess.run([sys.executable, "-c", "from cardenvs.core.jitcache import kernel_stamp; "
                                "print(kernel_stamp())"], env={**os.environ, "PYTHONPATH": str(copy)}, cwd=copy,
                               capture_output=True, text=True, check=True).stdout.strip()
    assert new_stamp != stamp
    (built / prebuilt.MANIFEST_NAME).write_text(json.dumps({**manifest, "kernel_stamp": new_stamp}))
    forged = run_child(copy, tmp_path / "cache-4", **{prebuilt.DIR_ENV: str(built)})
    assert forged["loads"] == 0 and forged["misses"] >= 1, forged
