"""Memory helpers for compiled steps: array views without reference counting, and
cache prefetch hints.

numba counts references to every array it passes between compiled functions or takes
out of a tuple (an atomic increment and decrement each time); in the rummy planner
these counts once cost about a sixth of a step. A *borrowed* view has no owner record
(``meminfo`` is null), so numba's counting skips it; its memory stays valid only while
the owning array lives, which the caller guarantees (see :func:`keep_alive`). Rami 51's
step borrows the caller's output arrays; its work arrays are a record (no count at all),
whose holding array :func:`keep_alive` also keeps.
"""

from __future__ import annotations

from llvmlite import ir
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


@njit(cache=True, no_cfunc_wrapper=True, no_cpython_wrapper=True)
def keep_alive(owner):
    """A use of ``owner`` after the last use of its borrowed views: numba frees a variable
    after its last use, so the owner of borrowed views must be used again after them."""
    return owner


@intrinsic
def prefetch_read(typingctx, arr, start, stop):
    """Ask the CPU to bring bytes ``start..stop`` of ``arr``'s data into its caches, one
    hint per 64-byte line, before they are read: a game's next state row while the current
    one is stepped. A hint only: nothing is read, no fault is possible, no value changes."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(arr)(context, builder, value=args[0])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        base = builder.bitcast(ary.data, i8p)
        with cgutils.for_range_slice(builder, args[1], args[2], ir.Constant(args[1].type, 64)) as (off, _):
            # read, high temporal locality, data cache
            builder.call(fn, [builder.gep(base, [off]), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(arr, types.int64, types.int64), codegen
