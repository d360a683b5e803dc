"""Array views without reference counting, for the work arrays of a compiled step.

numba counts references to every array it passes between compiled functions or takes
out of a tuple (an atomic increment and decrement each time). In the rummy planner
these counts cost about a sixth of a step. A *borrowed* view has no owner record
(``meminfo`` is null), so numba's counting skips it; its memory stays valid only while
the owning array lives, which the caller guarantees (see :func:`keep_alive`).
"""

from __future__ import annotations

from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def borrowed(typingctx, arr):
    """A view of ``arr`` that numba does not reference-count (the caller keeps ``arr`` alive)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        src = context.make_array(arr)(context, builder, value=args[0])
        dst = context.make_array(arr)(context, builder)
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(dst, name, getattr(src, name))
        dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
        dst.parent = cgutils.get_null_value(dst.parent.type)
        return dst._getvalue()

    return arr(arr), codegen


@njit(cache=True, no_cpython_wrapper=True)
def keep_alive(owner):
    """A use of ``owner`` after the last use of its borrowed views: numba frees a variable
    after its last use, so the owner of borrowed views must be used again after them."""
    return owner
