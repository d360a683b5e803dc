#!/usr/bin/env bash
# The release a user installs: build the sdist and the wheel, check their metadata, install
# the wheel (not editable) in a fresh virtualenv and run it from outside the checkout.
#
#   bash tools/release_check.sh          # about 3-6 minutes: the kernels' build, the venv's install
#
# Dependencies come from PyPI through pip's cache (numpy, numba, gymnasium, pettingzoo);
# nothing of the checkout is importable in that venv. The prebuilt kernels are compiled
# first, by this environment's Python and numba with the checkout installed in it (as CI
# does: `pip install -e .`): the venv must get the same numba version for them to serve.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python -m pip install -q build twine
# the kernels compiled for a portable CPU, shipped in the wheel (cardenvs/core/prebuilt.py)
python tools/prebuild_kernels.py
python -m build --outdir "$work/dist" . >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
ls "$work/dist"
python -m twine check --strict "$work/dist"/*

version=$(python - <<'PY'
import re
print(re.search(r'^version = "([^"]+)"$', open("pyproject.toml").read(), flags=re.M).group(1))
PY
)
wheel=$(ls "$work/dist"/cardenvs-"$version"-*.whl)
test -f "$work/dist/cardenvs-$version.tar.gz"

# the wheel carries the game pages (cardenvs rules) and the shipped baselines (agent ppo, scorer)
python - "$wheel" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
pages = {f"cardenvs/pages/{g}.md" for g in ("president", "odin", "rami51", "frime", "classes")}
baselines = {f"cardenvs/agents/baselines/{b}.{ext}" for b in ("president", "odin", "rami51", "rami51-scorer", "rami51-scorer-matches",
                                                              "frime", "classes") for ext in ("npz", "json")}
missing = sorted((pages | baselines) - names)
assert not missing, f"the wheel lacks {missing}"
assert not any(n.startswith(("tests/", "examples/", "benchmarks/", "tools/")) for n in names), "stray files in the wheel"
assert "cardenvs/prebuilt/manifest.json" in names, "the wheel lacks the prebuilt kernels"
kernels = sum(n.startswith("cardenvs/prebuilt/") and n.endswith(".nbc") for n in names)
print(f"wheel: {len(names)} files, the 5 game pages, {len(baselines)} baseline files and {kernels} prebuilt kernels "
      "among them")
PY

python -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel"
cd "$work"  # away from the checkout: only the installed package can be imported
test "$("$work/venv/bin/python" -c 'import cardenvs, os; print(os.path.dirname(cardenvs.__file__))')" \
    = "$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/cardenvs"
test "$("$work/venv/bin/cardenvs" --version)" = "cardenvs $version"
# a first match of every game (and one against Rami 51's card scorer) from the shipped kernels:
# nothing compiles (no game's compile notice here, and no kernel in numba's cache below)
export NUMBA_CACHE_DIR="$work/numba-cache"
"$work/venv/bin/python" - "$work/venv/bin/cardenvs" <<'PY'
import subprocess, sys, time
tables = [(game, []) for game in ("president", "odin", "rami51", "frime", "classes")]
tables.append(("rami51", ["--agents", "scorer,heuristic"]))  # its strongest shipped agent
for game, agents in tables:
    start = time.perf_counter()
    done = subprocess.run([sys.argv[1], "play", game, "--games", "1", "--seed", "1", *agents],
                          capture_output=True, text=True)
    print(f"{game}{' ' + agents[1] if agents else ''}: first match in {time.perf_counter() - start:.1f} s "
          "from a fresh install")
    assert done.returncode == 0, done.stderr
    assert "compiling" not in done.stderr, \
        f"the first {game} match ({agents or 'default agents'}) compiled: the shipped kernels were not used\n{done.stderr}"
PY
# a Frime position loaded in its choose phase: its check asks the split search from Python
"$work/venv/bin/python" -c '
import cardenvs
env = cardenvs.make("frime_v1", num_players=4)
env.reset(seed=0, options={"scenario": {"hands": [["Kc", "Kh", "2s"], None, None, None], "phase": "choose",
                                        "current": 0}})
assert env.unwrapped.state_dict()["phase"] == "choose"
print("frime: a choose-phase position loaded from a fresh install")'
# every kernel numba compiles is saved in its cache: none may have been
compiled=$(find "$NUMBA_CACHE_DIR" -name '*.nbi' 2>/dev/null | wc -l)
test "$compiled" -eq 0 || { find "$NUMBA_CACHE_DIR" -name '*.nbi'; echo "$compiled kernels compiled: the wheel lacks them"; exit 1; }
"$work/venv/bin/cardenvs" play president --players 5 --agents heuristic,random --games 20 | tee "$work/play.txt"
grep -q heuristic "$work/play.txt"
"$work/venv/bin/cardenvs" rules frime > "$work/frime.txt"
head -1 "$work/frime.txt" | grep -q "^# Frime"
cmp -s "$work/frime.txt" "$root/docs/games/frime.md" || { echo "cardenvs rules frime differs from docs/games/frime.md"; exit 1; }
"$work/venv/bin/python" -c '
import cardenvs
from cardenvs.agents import make_agent
make_agent("ppo", cardenvs.get_spec("president"))  # the shipped baseline loads
'
echo "release check passed: cardenvs $version (sdist, wheel, twine check, installed wheel runs)"
