"""A kernel that takes the record of a one-record work array (``work[0]``, its arrays
passed on without reference counts) keeps that array alive until the record's last use:
numba frees a variable after its last use, and the record does not hold it. A re-deal
kernel once wrote into such freed memory (an intermittent heap corruption). This reads
every compiled function of the package and asks for a ``keep_alive(work)`` after the
record's last use, or for the array itself to be returned."""

from __future__ import annotations

import ast
from pathlib import Path

import cardenvs

PACKAGE = Path(cardenvs.__file__).resolve().parent
ROOTS = [PACKAGE, PACKAGE.parent / "agents"]


def _is_jitted(func: ast.FunctionDef) -> bool:
    for deco in func.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if isinstance(target, ast.Name) and target.id in {"njit", "jit"}:
            return True
    return False


def _one_record_arrays(func: ast.FunctionDef) -> set[str]:
    """Local names bound to ``np.zeros(1, ...)`` / ``np.empty(1, ...)`` of a record dtype."""
    names = set()
    for node in ast.walk(func):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
                and node.value.func.attr in {"zeros", "empty"} and node.value.args
                and isinstance(node.value.args[0], ast.Constant) and node.value.args[0].value == 1
                and any(k.arg == "dtype" for k in node.value.keywords)):
            names.add(node.targets[0].id)
    return names


def _record_taken(func: ast.FunctionDef, name: str) -> int | None:
    """The line where ``name[0]`` is first taken, or None."""
    for node in ast.walk(func):
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name
                and isinstance(node.slice, ast.Constant) and node.slice.value == 0):
            return node.lineno
    return None


def _kept(func: ast.FunctionDef, name: str) -> bool:
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "keep_alive" \
                and any(isinstance(a, ast.Name) and a.id == name for a in node.args):
            return True
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name) and node.value.id == name:
            return True
    return False


def offending_kernels(source: str, filename: str) -> list[str]:
    found = []
    for func in ast.walk(ast.parse(source)):
        if isinstance(func, ast.FunctionDef) and _is_jitted(func):
            for name in _one_record_arrays(func):
                line = _record_taken(func, name)
                if line is not None and not _kept(func, name):
                    found.append(f"{filename}:{line} {func.name}: {name}[0] without keep_alive({name})")
    return found


def test_every_kernel_keeps_its_work_array_alive():
    found = []
    for root in ROOTS:
        for path in sorted(root.rglob("*.py")) if root.is_dir() else ():
            text = path.read_text(encoding="utf-8")
            if "njit" in text:
                found += offending_kernels(text, str(path.relative_to(root.parent)))
    assert found == []


def test_the_check_sees_the_mistake():
    bad = (
        "@njit(cache=True)\n"
        "def f(states):\n"
        "    work = np.zeros(1, dtype=WORK)\n"
        "    ws = work[0]\n"
        "    for i in range(3):\n"
        "        g(ws.H)\n"
        "    return 1\n"
    )
    assert offending_kernels(bad, "x.py") == ["x.py:4 f: work[0] without keep_alive(work)"]
    kept = bad.replace("    return 1\n", "    keep_alive(work)\n    return 1\n")
    assert offending_kernels(kept, "x.py") == []
    returned = bad.replace("    return 1\n", "    return work\n")
    assert offending_kernels(returned, "x.py") == []
    plain = bad.replace("@njit(cache=True)\n", "")  # Python code: the array lives as long as its name
    assert offending_kernels(plain, "x.py") == []
