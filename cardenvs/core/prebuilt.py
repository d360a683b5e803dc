"""Kernels compiled ahead of time for a portable CPU and shipped in the wheel.

numba compiles a game's kernels on their first use (about 10 s for President, a minute for
Rami 51 on 2 cores) and caches them. The release build compiles every game once for a
portable x86-64 CPU (LLVM's ``x86-64-v3`` model: AVX2, BMI1/2, FMA, LZCNT and MOVBE, which
most x86-64 CPUs made since 2013-2015 have) into ``cardenvs/prebuilt/``, with a manifest, and
the wheel carries that folder.
A project kernel that is not in numba's own cache is then looked up there before it is
compiled, so that a fresh install plays at once.

A prebuilt kernel is used only when all of these hold, else numba compiles as usual:

- the manifest's kernel stamp is the hash of the installed kernel sources
  (:func:`~cardenvs.core.jitcache.kernel_stamp`: one edited kernel file anywhere and no
  prebuilt kernel is used), and each cache index carries that stamp too;
- the same numba version, Python version and target triple (numba checks its version in
  each index as well; the key of each kernel holds its signature and its bytecode's hash);
- this CPU has every instruction set extension of the target (checked with LLVM);
- numba compiles with the build's settings: no CPU of the user's own (``NUMBA_CPU_NAME``,
  ``NUMBA_CPU_FEATURES``), the same bounds checks, optimisation level and debug info
  (numba's cache key holds none of these: ``NUMBA_BOUNDSCHECK=1`` must compile its own);
- ``CARDENVS_PREBUILT`` is not ``0`` (``cardenvs warmup --native`` sets it to compile for
  this machine's own CPU: kernels in numba's cache come first).

A damaged folder (an unreadable index or data file) is passed over, once said on stderr:
numba then compiles.

Building: ``python tools/prebuild_kernels.py`` (the release check runs it before it builds
the wheel) runs every game's front ends in processes compiling for the portable target,
with :data:`BUILD_ENV` naming the folder that the project's cache locator writes to.
"""

from __future__ import annotations

import json
import os
import sys
from functools import lru_cache
from pathlib import Path

#: the folder the wheel ships (absent in a checkout until built; ``.gitignore``\d there)
PREBUILT_DIR = Path(__file__).resolve().parent.parent / "prebuilt"
MANIFEST_NAME = "manifest.json"
FORMAT = 1
#: LLVM's CPU model of the prebuilt kernels, and the extensions it assumes (LLVM's names)
#: (x86-64-v3 rather than the older v2: its kernels stepped 9-28 % faster on the same CPU,
#: and a CPU without it compiles its own on first use, as without prebuilt kernels)
TARGET_CPU = "x86-64-v3"
TARGET_FEATURES = (
    "cx16", "popcnt", "sahf", "sse3", "sse4.1", "sse4.2", "ssse3",  # x86-64-v2 (its crc32 is part of sse4.2)
    "avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave",  # v3 adds these
)
#: set while building: the folder that project kernels are cached into, laid out as shipped
BUILD_ENV = "CARDENVS_PREBUILD_DIR"
#: ``0`` turns the prebuilt kernels off (``cardenvs warmup --native`` sets it)
SWITCH_ENV = "CARDENVS_PREBUILT"
#: another folder of prebuilt kernels to use instead of the package's (the tests use it)
DIR_ENV = "CARDENVS_PREBUILT_DIR"

#: kernels loaded from the prebuilt folder in this process (the tests and tools read it)
loads = 0


def module_dir_key(py_file: str, package_dir: Path, checkout_agents: Path) -> str:
    """The name of a kernel file's folder, the same in a checkout and in an installed wheel:
    ``games.president`` for ``cardenvs/games/president/rules.py``, ``agents.heuristics`` for
    the agents (``cardenvs/agents/`` in a wheel, ``agents/`` beside the package in a checkout)."""
    folder = Path(os.path.realpath(py_file)).parent
    for root, prefix in ((package_dir, ()), (checkout_agents, ("agents",))):
        if folder == root or root in folder.parents:
            parts = prefix + folder.relative_to(root).parts
            return ".".join(parts) or "_"
    raise ValueError(f"{py_file} is not a file of the package")


def build_dir() -> Path | None:
    """The folder project kernels are cached into while prebuilding, or None."""
    value = os.environ.get(BUILD_ENV)
    return Path(value) if value else None


def _prebuilt_dir() -> Path:
    return Path(os.environ[DIR_ENV]) if os.environ.get(DIR_ENV) else PREBUILT_DIR


def host_has_target() -> bool:
    """Whether this CPU runs code built for :data:`TARGET_CPU` (an x86-64 CPU with every
    extension in :data:`TARGET_FEATURES`)."""
    from llvmlite import binding as ll

    if not ll.get_process_triple().startswith("x86_64"):
        return False
    try:
        features = ll.get_host_cpu_features()
    except RuntimeError:  # LLVM cannot tell: do not guess
        return False
    return all(features.get(name, False) for name in TARGET_FEATURES)


def compile_settings() -> dict:
    """numba's settings that change the machine code but not its cache key."""
    from numba.core import config

    return {name: str(getattr(config, name, None)) for name in ("BOUNDSCHECK", "OPT", "DEBUGINFO_DEFAULT")}


def manifest_for(stamp: str, games: list[str]) -> dict:
    """The manifest of kernels built in this process's setting for the sources ``stamp``."""
    import numba
    from llvmlite import binding as ll

    return {
        "settings": compile_settings(),
        "format": FORMAT,
        "numba": numba.__version__,
        "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
        "triple": ll.get_process_triple(),
        "cpu": TARGET_CPU,
        "features": "",
        "requires": list(TARGET_FEATURES),
        "kernel_stamp": stamp,
        "games": sorted(games),
    }


def why_unused(manifest: dict | None, stamp: str) -> str | None:
    """Why the prebuilt kernels of ``manifest`` cannot serve this process (None: they can)."""
    import numba
    from llvmlite import binding as ll
    from numba.core import config

    if os.environ.get(SWITCH_ENV) == "0":
        return f"{SWITCH_ENV}=0"
    if build_dir() is not None:
        return "building them"
    if config.CPU_NAME is not None or config.CPU_FEATURES is not None:
        return "numba is told which CPU to compile for (NUMBA_CPU_NAME, NUMBA_CPU_FEATURES)"
    if manifest is None:
        return "none are installed"
    if manifest.get("format") != FORMAT:
        return "another format"
    if manifest.get("cpu") != TARGET_CPU:
        return f"built for the CPU model {manifest.get('cpu')}, this version uses {TARGET_CPU}"
    if manifest.get("settings") != compile_settings():
        return "numba's settings differ (bounds checks, optimisation or debug info)"
    if manifest.get("numba") != numba.__version__:
        return f"built for numba {manifest.get('numba')}, this is numba {numba.__version__}"
    if manifest.get("python") != f"{sys.version_info[0]}.{sys.version_info[1]}":
        return f"built for Python {manifest.get('python')}"
    if manifest.get("triple") != ll.get_process_triple():
        return f"built for {manifest.get('triple')}"
    if manifest.get("kernel_stamp") != stamp:
        return "built from other kernel sources"
    if not host_has_target():
        return f"this CPU lacks an extension of {TARGET_CPU}"
    return None


_FIELDS = {"format": int, "numba": str, "python": str, "triple": str, "cpu": str, "features": str,
           "kernel_stamp": str, "games": list, "settings": dict}


def read_manifest(folder: Path) -> dict | None:
    """The folder's manifest, or None where it is missing or not one."""
    try:
        manifest = json.loads((folder / MANIFEST_NAME).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict):
        return None
    if not all(isinstance(manifest.get(key), kind) for key, kind in _FIELDS.items()):
        return None
    return manifest


# (the kernel stamp is passed in by cardenvs.core.jitcache, which uses this module)
@lru_cache(maxsize=1)
def usable(stamp: str) -> tuple[Path, dict] | None:
    """The prebuilt folder and its manifest when they can serve a process whose kernel
    sources have the stamp ``stamp`` (checked once)."""
    folder = _prebuilt_dir()
    manifest = read_manifest(folder)
    if why_unused(manifest, stamp) is not None:
        return None
    return folder, manifest


def status(stamp: str) -> str:
    """One line: whether prebuilt kernels serve this process, and if not why."""
    manifest = read_manifest(_prebuilt_dir())
    why = why_unused(manifest, stamp)
    if why is None:
        return f"prebuilt kernels ({TARGET_CPU}) for {', '.join(manifest['games'])}"
    return f"no prebuilt kernels ({why})"


def has_game(game: str, stamp: str) -> bool:
    """Whether the prebuilt kernels serving this process include ``game``'s."""
    found = usable(stamp)
    return found is not None and game in found[1]["games"]


def reset() -> None:
    """Forget what :func:`usable` found (after the environment changed)."""
    usable.cache_clear()


def load(cache, locator, sig, target_context, stamp: str):
    """numba's compile result for ``sig`` from the prebuilt folder, or None.

    ``cache`` is numba's per-function cache and ``locator`` its project locator: the entry
    is looked up by the same index name and key as numba's own, with the portable
    target's CPU in the key instead of this machine's; the index must carry ``stamp``."""
    global loads
    from numba.core.caching import IndexDataCacheFile

    found = usable(stamp)
    if found is None:
        return None
    folder, manifest = found
    key = cache._index_key(sig, target_context.codegen())
    key = (key[0], (manifest["triple"], manifest["cpu"], manifest["features"])) + tuple(key[2:])
    entries = IndexDataCacheFile(cache_path=str(folder / locator.dir_key),
                                 filename_base=cache._impl.filename_base,
                                 source_stamp=stamp)
    try:
        payload = entries.load(key)
        if payload is None:
            return None
        data = cache._impl.rebuild(target_context, payload)
    except Exception as error:  # a damaged folder: numba compiles instead
        _warn_once(f"cardenvs: a prebuilt kernel could not be read ({type(error).__name__}: {error}); "
                   "compiling instead")
        return None
    loads += 1
    return data


_warned = False


def _warn_once(message: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        print(message, file=sys.stderr, flush=True)
