"""numba's on-disk cache, keyed on every kernel source of the package.

numba keys a cached function on its own file only: after an edit of a helper in
``core/bits.py``, a cached caller in ``games/odin/rules.py`` keeps the old machine code (it
inlined or linked the helper when it was compiled). That would let a developer after an
edit, or a user after an upgrade, run stale kernels.

:func:`install` puts a locator in front of numba's own ones. For a function defined in
this project it finds the place numba would have used (``NUMBA_CACHE_DIR``, the module's
``__pycache__``, the user-wide cache ...) and keeps it, but stamps the cache index with a
hash of every kernel source (each ``.py`` file of ``cardenvs/`` and ``agents/`` that
imports numba) instead of the function's own file. Any edit of any kernel file thus
makes every cached kernel of the project stale, and numba recompiles it on first use.
Functions outside the project keep numba's behaviour. ``NUMBA_CACHE_LOCATOR_CLASSES``,
when set, replaces numba's locator list and this one with it.

numba's cache is not safe for processes that compile the same function at once (``cardenvs
warmup`` compiles games side by side, and the games share kernels of the core and the
rummy layer, each compiled for every game's record type): each process reads the index,
picks the first free data file name and writes both, so two processes can pick the same
name and one index then points at the other's machine code, which runs on the wrong
record type. :func:`install` therefore also makes the saving of a project kernel's cache
entry hold an exclusive lock on a file beside its index, so that the index is read and
written by one process at a time.

A project kernel missing from numba's cache is then looked up among the kernels prebuilt
for a portable CPU and shipped in the wheel (:mod:`cardenvs.core.prebuilt`), under the same
stamp, before numba compiles it.

numba names each compiled function's machine code after its module, name, argument types
and a number counted from 1 in each process (``FunctionIdentity``'s ``uid``); a record
type's part of the name is also a per-process number (``Record._code``). Two processes
that compile in the same order (two games trained side by side, or one after the other
into one cache) thus give a shared kernel compiled for two games' record types the same
symbol name, ``cardenvs.rummy.table.hand_of[v49](Record<688>, ...)`` in both. Every
cached caller carries its own copy of such a callee as a weak symbol, and a process that
loads callers of both from the cache links each call to whichever copy it loaded first:
the second game then runs the first one's field offsets on its own states (numba issue
#10486). :func:`install` therefore starts the count of each process (and of each forked
child) at a random 62-bit number, so that names compiled by two processes never meet,
and :func:`kernel_stamp` includes :data:`CACHE_FORMAT`, so that cache entries written
before (with counts from 1) are stale.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import secrets
import types
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from numba.core import bytecode, caching

from cardenvs.core import prebuilt
from cardenvs.core.compile_notice import compile_notice  # its words kept apart: see that module

# numba's base of the compile-result caches (_CacheImpl in older releases)
_CACHE_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl

PACKAGE_DIR = Path(__file__).resolve().parent.parent
# cardenvs.agents: inside the package once installed from a wheel; in a checkout (an
# editable install) it is the repository's top-level agents/ folder
_CHECKOUT_AGENTS = PACKAGE_DIR.parent / "agents"
KERNEL_ROOTS = (PACKAGE_DIR,) + (
    (_CHECKOUT_AGENTS,) if not (PACKAGE_DIR / "agents").is_dir() and (PACKAGE_DIR.parent / "pyproject.toml").is_file()
    else ()
)


def _installed_name(path: Path) -> str:
    """A source file's name as installed from the wheel (``cardenvs/agents/base.py`` also
    for a checkout's ``agents/base.py``), so that a checkout and its wheel share a stamp."""
    if PACKAGE_DIR in path.parents:
        return "cardenvs/" + path.relative_to(PACKAGE_DIR).as_posix()
    return "cardenvs/agents/" + path.relative_to(_CHECKOUT_AGENTS).as_posix()


def kernel_sources() -> list[Path]:
    """Every Python file of the project that holds numba kernels, by installed name."""
    files = []
    for root in KERNEL_ROOTS:
        if root.is_dir():
            files += [path for path in root.rglob("*.py") if b"numba" in path.read_bytes()]
    return sorted(files, key=_installed_name)


#: what else a cache entry's machine code depends on, beside the kernel sources: entries
#: written under another format are stale ("random-uids": each process's symbol names are
#: numbered from a random start, :func:`fresh_uids`)
CACHE_FORMAT = b"cardenvs-cache-format:random-uids-1"


@lru_cache(maxsize=1)
def kernel_stamp() -> str:
    """sha256 over :data:`CACHE_FORMAT` and the installed names and contents of all kernel
    sources (computed once per process): the same for a checkout and the wheel built from it."""
    digest = hashlib.sha256(CACHE_FORMAT + b"\0")
    for path in kernel_sources():
        digest.update(_installed_name(path).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def _in_project(py_file: str) -> bool:
    path = Path(os.path.realpath(py_file))
    return any(root == path.parent or root in path.parents for root in KERNEL_ROOTS)


class ProjectCacheLocator(caching._CacheLocator):
    """numba's usual cache place for the function, stamped with :func:`kernel_stamp`
    (while prebuilding: the build folder, laid out as shipped: see :mod:`~cardenvs.core.prebuilt`)."""

    def __init__(self, inner: caching._CacheLocator, py_file: str):
        self._inner = inner
        #: the kernel file's folder as named in the prebuilt folder
        self.dir_key = prebuilt.module_dir_key(py_file, PACKAGE_DIR, _CHECKOUT_AGENTS)

    def ensure_cache_path(self) -> None:
        if prebuilt.build_dir() is not None:
            os.makedirs(self.get_cache_path(), exist_ok=True)
        else:
            self._inner.ensure_cache_path()

    def get_cache_path(self) -> str:
        building = prebuilt.build_dir()
        if building is not None:
            return str(building / self.dir_key)
        return self._inner.get_cache_path()

    def get_source_stamp(self) -> str:
        return kernel_stamp()

    def get_disambiguator(self) -> str:
        return self._inner.get_disambiguator()

    def __getattr__(self, name: str):
        # numba reads other attributes of its own locators (``_py_file`` when it warns
        # that a function cannot be cached): answer them from the wrapped one (never for
        # ``_inner`` itself or special names, which copying and unpickling look up before
        # ``_inner`` exists)
        if name == "_inner" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._inner, name)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not _in_project(py_file):
            return None
        for other in _CACHE_IMPL._locator_classes:
            if other is cls:
                continue
            inner = other.from_function(py_func, py_file)
            if inner is not None:
                return cls(inner, py_file)
        return None


_announced: set[str] = set()


def _marker(module) -> Path | None:
    """The file that says a game's kernels are in the cache for the current sources."""
    kernel = getattr(module, "step_batch", None)
    py_func = getattr(kernel, "py_func", None)
    if py_func is None or prebuilt.build_dir() is not None:
        return None
    try:
        locator = ProjectCacheLocator.from_function(py_func, py_func.__code__.co_filename)
        if locator is None:
            return None
        game = _game_name(module)
        return Path(locator.get_cache_path()) / f"cardenvs-ready-{game}-{kernel_stamp()[:16]}"
    except Exception:  # an unusual cache setup: no notice rather than an error
        return None


def announce_compile(module, title: str) -> None:
    """One line on stderr, once per process and game, when the game's kernels are not yet
    in numba's cache for the current sources (a first run, or after an upgrade)."""
    name = module.__name__
    if name in _announced or os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return
    _announced.add(name)
    if prebuilt.has_game(_game_name(module), kernel_stamp()):
        return
    marker = _marker(module)
    if marker is not None and not marker.exists():
        import sys

        print(compile_notice(title), file=sys.stderr, flush=True)


def _game_name(module) -> str:
    return module.__name__.rsplit(".", 1)[-1]


def is_compiled(module) -> bool:
    """Whether the game's kernels are in numba's cache for the current sources (as far as
    the marker tells: False for an unusual cache setup), or prebuilt for this machine."""
    if prebuilt.has_game(_game_name(module), kernel_stamp()):
        return True
    marker = _marker(module)
    return marker is not None and marker.exists()


def mark_compiled(module) -> None:
    """Record that the game's kernels have been compiled into the cache (not where the
    prebuilt kernels serve: then nothing was compiled)."""
    if prebuilt.has_game(_game_name(module), kernel_stamp()):
        return
    marker = _marker(module)
    if marker is not None and not marker.exists():
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass


@contextmanager
def _index_lock(index_path: str):
    """An exclusive lock on ``index_path + ".lock"`` while the block runs (none where the
    platform or the file system has no ``flock``: numba's own behaviour then)."""
    try:
        import fcntl

        fd = os.open(index_path + ".lock", os.O_RDWR | os.O_CREAT, 0o666)
    except (ImportError, OSError):
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            pass
        yield
    finally:
        os.close(fd)  # closing releases the lock


_numba_save = caching.IndexDataCacheFile.save


def _locked_save(self, key, data) -> None:
    """numba's ``IndexDataCacheFile.save``, under the index's lock for a project kernel
    (one stamped with :func:`kernel_stamp`): inside the lock numba reads the index again,
    so a name another process took meanwhile is seen and not reused."""
    if getattr(self, "_source_stamp", None) != kernel_stamp():
        return _numba_save(self, key, data)
    with _index_lock(self._index_path):
        return _numba_save(self, key, data)


_numba_load_overload = caching.Cache._load_overload


def _load_overload(self, sig, target_context):
    """numba's lookup in its cache, then, for a project kernel not found there, in the
    prebuilt kernels (:mod:`~cardenvs.core.prebuilt`)."""
    data = _numba_load_overload(self, sig, target_context)
    if data is None and self._enabled:
        locator = self._impl.locator
        if isinstance(locator, ProjectCacheLocator):
            data = prebuilt.load(self, locator, sig, target_context, kernel_stamp())
    return data


class _RandomStartCount(itertools.count):
    """numba's count of compiled functions, started at a random number (what
    :func:`install` put there: its mark)."""


def fresh_uids() -> None:
    """Number this process's compiled functions from a random 62-bit start (numba counts
    from 1): the symbol names of the machine code compiled here then differ from those of
    any other process, whose cached code this process may load beside its own (see the
    module's notes). Called by :func:`install`, and again in each child forked after it
    (a fork would go on with its parent's count)."""
    bytecode.FunctionIdentity._unique_ids = _RandomStartCount(secrets.randbits(62) + 1)


def install() -> None:
    """Put :class:`ProjectCacheLocator` first in numba's locator list, lock the saving of
    the project's cache entries, look up prebuilt kernels after numba's cache and number
    compiled functions from a random start in this process and its forked children
    (:func:`fresh_uids`) (idempotent)."""
    if not isinstance(bytecode.FunctionIdentity._unique_ids, _RandomStartCount):
        fresh_uids()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=fresh_uids)
    classes = _CACHE_IMPL._locator_classes
    if ProjectCacheLocator not in classes:
        classes.insert(0, ProjectCacheLocator)
    if caching.IndexDataCacheFile.save is not _locked_save:
        caching.IndexDataCacheFile.save = _locked_save
    if caching.Cache._load_overload is not _load_overload:
        caching.Cache._load_overload = _load_overload


def in_project(code: types.CodeType | None) -> bool:
    """Whether compiled code from this source is keyed by this cache (a file of the
    project's): only then may a bound copy calling it be cached."""
    return code is not None and _in_project(code.co_filename)


def bound_copy(func: types.FunctionType, names: dict, qualname: str) -> types.FunctionType:
    """A copy of ``func`` that reads its global names from ``names``, under ``qualname``.

    numba reads a compiled function's globals when it compiles it, so compiling such
    copies makes one function serve callers that differ only in the compiled functions it
    calls (each game's hooks, each heuristic's ``decide``): passing those as arguments
    would not do, as numba caches no function that takes a compiled function or closes
    over one. numba keeps a cached function under its file and qualified name, so each
    copy needs a ``qualname`` of its own, and is cached only where what it calls is the
    project's (:func:`in_project`): the cache is keyed on the project's sources alone."""
    copy = types.FunctionType(func.__code__, names, func.__name__, func.__defaults__, func.__closure__)
    copy.__qualname__ = qualname
    copy.__doc__ = func.__doc__
    return copy
