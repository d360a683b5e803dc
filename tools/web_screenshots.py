"""Screenshots of the page of ``cardenvs serve``, one per game, for the docs:
docs/images/web-<game>.png, each a table in the browser a few moves into a match, seen
from the person's seat, with a card or two selected.

    python tools/web_screenshots.py            # every game
    python tools/web_screenshots.py odin       # one game

It starts the real server on a free port and drives headless Chromium with Playwright
(the system's Chromium: ``chromium`` on the PATH, or the path in ``CARDENVS_CHROMIUM``).
The person's moves are scripted (the first move offered), the other seats are the
heuristics, and the seeds are fixed, so a run draws the same tables. Each image is
reduced to a palette of colours, which keeps it well under 200 kB.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import socket
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "images"
MAX_BYTES = 200_000
# game -> (players, seed, moves the person makes before the picture)
SCENES = {
    "president": (4, 7, 2),
    "odin": (4, 3, 2),
    "rami51": (2, 12, 6),
    "frime": (4, 5, 6),
    "classes": (4, 5, 6),
}


def start_server():
    import uvicorn

    from cardenvs.cli.console import parse_human_line
    from cardenvs.web.app import create_app

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(parse_human_line), host="127.0.0.1", log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline:
            raise SystemExit("the server did not start")
        time.sleep(0.05)
    return server, thread, f"http://127.0.0.1:{sock.getsockname()[1]}"


def settle(page) -> None:
    page.wait_for_function("!document.body.classList.contains('busy')")


def scene(page, url: str, game: str) -> bytes:
    players, seed, moves = SCENES[game]
    page.goto(url + "/")
    page.wait_for_selector("body[data-ready=true]")
    page.select_option("#game", game)
    page.fill("#players", str(players))
    page.dispatch_event("#players", "change")
    page.fill("#seed", str(seed))
    page.click("#deal")
    page.wait_for_selector("#play:not([hidden])", timeout=120_000)
    for _ in range(moves):
        if page.locator("#result").is_visible():
            break
        offered = page.locator("#all-moves button.move")
        texts = offered.evaluate_all("els => els.map(e => e.dataset.move)")
        choice = next((t for t in texts if t != "pass"), texts[0])
        page.evaluate("m => document.querySelector(`#all-moves button[data-move=\"${m}\"]`).click()", choice)
        settle(page)
    hand = page.locator("#table g.card.in-hand")
    for k in range(min(2, hand.count())):  # a selection, as a person building a play sees it
        hand.nth(k).click(position={"x": 4, "y": 30})
    return page.locator("#play").screenshot(animations="disabled")


def small_png(png: bytes) -> bytes:
    """The screenshot as a palette PNG (the page has few colours), smallest of a few sizes."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    for colours in (128, 64, 32):
        buffer = io.BytesIO()
        image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT).save(buffer, "PNG", optimize=True)
        if buffer.tell() <= MAX_BYTES:
            return buffer.getvalue()
    raise SystemExit(f"a screenshot stays above {MAX_BYTES:,} bytes")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", choices=[*SCENES, []], help="games (default: all)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("CARDENVS_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("no Chromium on the PATH (set CARDENVS_CHROMIUM to its path)")
    server, thread, url = start_server()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1040, "height": 1200})
            page.set_default_timeout(60_000)
            for game in args.games or SCENES:
                data = small_png(scene(page, url, game))
                path = OUT / f"web-{game}.png"
                path.write_bytes(data)
                print(f"{path.relative_to(ROOT)}: {len(data):,} bytes")
            browser.close()
    finally:
        server.should_exit = True
        thread.join(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
