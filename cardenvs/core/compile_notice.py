"""The line a person reads while a game's kernels compile for the first time.

It lives apart from :mod:`cardenvs.core.jitcache` on purpose: the compiled-code cache is
keyed on every file that holds kernels (or names their compiler), so a change of these
words there would make every cached kernel stale. The figures are what a user meets on a
busy 2-core machine, measured from an empty cache (docs/performance.md, "Compile time").
"""

from __future__ import annotations


def compile_notice(title: str) -> str:
    """``cardenvs: compiling the Rami 51 kernels ...`` with the time to expect."""
    return (f"cardenvs: compiling the {title} kernels for this machine (first use only: on 2 cores about "
            "10-20 s for President or Odin, 20-45 s for Frime or Classes, 45-90 s for Rami 51; "
            "`cardenvs warmup` does it ahead)")
