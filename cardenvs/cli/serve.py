"""``cardenvs serve``: the browser front end on this computer (the ``web`` extra):
play a seat against the agents, and open saved matches in the replay viewer."""

from __future__ import annotations

import argparse
import ipaddress
import socket
from typing import Any, TextIO

from cardenvs.cli.common import CliError, check_count

HELP = "play in the browser, on this computer (needs cardenvs[web])"
DESCRIPTION = (
    "Start a local web page where you play a seat against the agents, and open saved matches. "
    "It listens on 127.0.0.1 (this computer only) unless --host says otherwise."
)
INSTALL = 'the browser page needs the web extra: pip install "cardenvs[web]"'


def add_parser(sub: Any) -> None:
    serve = sub.add_parser("serve", help=HELP, description=DESCRIPTION)
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to listen on, and the only one the page answers to (default 127.0.0.1: "
                       "this computer only)")
    serve.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    serve.add_argument("--policy", action="append", default=[], metavar="NAME=PATH",
                       help="a trained policy (its policy.npz) the page offers as an agent named NAME, "
                       "for the game it was trained on; repeat for more")


def policies(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        name = name.strip()
        if not sep or not name or not path:
            raise CliError(f"--policy expects NAME=PATH, got {pair!r}")
        if name in out:
            raise CliError(f"--policy {name} is given twice")
        out[name] = path
    return out


def is_every_address(host: str) -> bool:
    """Whether ``host`` is a wildcard address (0.0.0.0, ::, and their other spellings such as
    ``::0``, ``0:0::0`` or the short IPv4 form ``0``), which listens on every address."""
    if not host.strip():
        return True
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        pass
    try:  # the forms the system's resolver also reads as IPv4: "0", "0.0", "0x0"
        return socket.inet_aton(host) == bytes(4)
    except OSError:
        return False


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this computer's loopback address (no other machine reaches it)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cmd_serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Serve the page until interrupted."""
    check_count("--port", args.port, 1, 65535)
    if is_every_address(args.host):
        # the page answers only requests that name the address it listens on (the Host check)
        raise CliError(f"--host {args.host!r} is every address, and the page answers only requests naming its own: "
                       "give this machine's address (say --host 192.168.1.20) to play from another machine")
    wanted = policies(args.policy)
    try:
        import uvicorn

        from cardenvs.web.app import create_app
    except ImportError as e:  # starlette or uvicorn missing
        raise CliError(f"{INSTALL} ({e.name or e} is missing)") from None
    from cardenvs.cli.console import parse_human_line

    try:
        app = create_app(parse_human_line, wanted, host=args.host)
    except (ValueError, OSError) as e:
        raise CliError(f"--policy: {e}") from None
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"cardenvs serve: open http://{shown}:{args.port}/ in a browser (Ctrl-C stops it)", file=out)
    if is_loopback(args.host):
        print("local only: the page listens on this computer's loopback address; no other machine can reach it",
              file=out)
    else:
        print(f"note: listening on {args.host}: other machines that reach this address can play here; "
              "the page has no login", file=out)
    out.flush()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
