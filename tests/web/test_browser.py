"""The page in a real browser: the server of ``cardenvs serve`` (uvicorn, in a thread, on a
free port) driven in headless Chromium by Playwright. A whole President match played by
clicking cards and moves, a Rami 51 turn that opens with melds built by clicks, and a
saved match opened in the replay viewer.

Playwright's own browser download is not used: the tests run the system's Chromium
(``chromium`` on the PATH, or the one ``CARDENVS_CHROMIUM`` names). Without Playwright or
Chromium they are skipped, unless ``CARDENVS_REQUIRE_BROWSER=1`` (CI), where they fail.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator

import pytest

REQUIRED = os.environ.get("CARDENVS_REQUIRE_BROWSER") == "1"
CHROMIUM = os.environ.get("CARDENVS_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def _missing(why: str) -> None:
    if REQUIRED:
        pytest.fail(f"{why} (CARDENVS_REQUIRE_BROWSER=1)", pytrace=False)
    pytest.skip(why, allow_module_level=True)


try:
    import uvicorn
    from playwright.sync_api import Page, expect, sync_playwright
except ImportError as e:
    _missing(f"the browser tests need playwright, uvicorn and starlette: {e}")
if CHROMIUM is None:
    _missing("no Chromium on the PATH (set CARDENVS_CHROMIUM to its path)")

from cardenvs.cli.console import parse_human_line  # noqa: E402
from cardenvs.web.app import create_app  # noqa: E402

TIMEOUT_MS = 20_000  # a response waits for the agents' moves
COMPILE_MS = 400_000  # a new match, the first of its game, on a cold cache: numba compiles the game


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The real server on a free port of 127.0.0.1, its address."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(parse_human_line), host="127.0.0.1", port=port, log_level="warning")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not uv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    uv.should_exit = True
    thread.join(10)
    sock.close()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, server) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server + "/")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    yield page
    context.close()


def deal(page: Page, game: str, players: int, opponents: list[str], seed: int, options: dict | None = None) -> None:
    page.select_option("#game", game)
    page.fill("#players", str(players))
    page.dispatch_event("#players", "change")
    page.select_option("#seat", "0")
    for k, name in enumerate(opponents):
        page.locator("#opponents select").nth(k).select_option(name)
    page.fill("#seed", str(seed))
    if options:
        page.click("#options-box summary")
    for name, value in (options or {}).items():
        page.fill(f'[data-option="{name}"]', str(value))
    # a game's first match compiles its kernels where numba's cache does not hold them yet
    with page.expect_response(lambda r: r.url.endswith("/api/tables"), timeout=COMPILE_MS) as response:
        page.click("#deal")
    assert response.value.ok, response.value.text()
    assert response.value.request.post_data_json["seed"] == str(seed)  # its digits: exact past 2**53
    expect(page.locator("#play")).to_be_visible()


def hand_card(page: Page, card: str, nth: int = 0):
    return page.locator(f'#table g.card.in-hand[data-card="{card}"]').nth(nth)


def click_card(page: Page, card: str, nth: int = 0) -> None:
    # the left edge of a card: the hand overlaps from the right when it is long
    hand_card(page, card, nth).click(position={"x": 4, "y": 30})


def send(page: Page, button: str) -> None:
    """Click ``button`` and wait for the server's answer (which must be a success)."""
    with page.expect_response(lambda r: "/move" in r.url) as response:
        page.click(button)
    assert response.value.ok, response.value.text()
    assert isinstance(response.value.request.post_data_json["expect"], int)  # the turn it was sent for
    settled(page)


def settled(page: Page) -> None:
    """Wait for the page to have shown the server's answer."""
    expect(page.locator("body")).not_to_have_class(re.compile("busy"))


def move_buttons(page: Page) -> list[str]:
    return page.locator("#moves button.move").all_inner_texts()


def test_a_whole_president_match_by_clicks(page):
    """Seat 0 against three heuristics, to 3 points: each play of cards is made by clicking
    the cards of the hand (the lowest play offered), every other move by its button."""
    deal(page, "president", 4, ["heuristic"] * 3, seed=7, options={"target_score": 3})
    # the match file and its replay show every hand: not offered while the match is played
    expect(page.locator("#save-match")).to_be_hidden()
    expect(page.locator("#replay-match")).to_be_hidden()
    plays_by_cards = 0
    for _ in range(300):
        if page.locator("#result").is_visible():
            break
        moves = move_buttons(page)
        assert moves, "the person's turn with no move offered"
        plays = [m for m in moves if m != "pass" and not m.startswith("give")]
        if plays:
            rank, count = plays[0][0], len(plays[0])
            cards = [c for c in page.locator("#table g.card.in-hand").evaluate_all(
                "els => els.map(e => e.dataset.card)") if c[0] == rank][:count]
            for card in cards:
                click_card(page, card)
            expect(page.locator("#selection")).to_have_text(" ".join(cards))
            send(page, "#send-selection")
            plays_by_cards += 1
        else:
            send(page, f'#moves button[data-move="{moves[0]}"]')
    else:
        pytest.fail("the match did not end in 300 moves")
    result = page.locator("#result").inner_text()
    assert ("You won!" in result or "You lost." in result) and "match over: winner" in result
    events = page.locator("#events li").all_inner_texts()
    assert any(e.startswith("round 1 over: places: ") for e in events), events
    assert page.locator("#events li.kind-round details.event-table").count() >= 2  # each round's last table
    assert plays_by_cards >= 5
    assert page.locator("#turn").is_hidden()
    expect(page.locator("#save-match")).to_be_visible()
    with page.expect_response(lambda r: r.url.endswith("/replay")) as response:
        page.click("#replay-match")
    assert response.value.ok, response.value.text()
    expect(page.frame_locator("#replay-frame").locator("#slider")).to_be_attached()
    page.click("#close-replay")
    expect(page.locator("#play")).to_be_visible()


def test_a_rami51_turn_that_opens_with_melds_built_by_clicks(page):
    """Seed 2: player_0 moves first and takes the discard (8s), which must go to a meld at
    once. The person builds the run Jc Qc Kc by clicking its cards (a card clicked by
    mistake is refused, the table as it was); the other run, 8s 9s Ts, is then the only way
    to lay the taken card and is played for them; the discard ends the turn."""
    deal(page, "rami51", 2, ["heuristic"], seed=2)
    assert sorted(move_buttons(page)) == ["draw", "take"]
    send(page, '#moves button[data-move="take"]')
    assert page.locator("#events li").all_inner_texts() == [
        "player_0 (you): takes the discard and begins a meld", "you take 8s"]
    assert move_buttons(page) == []  # every move is a card of the hand: made by clicks
    for card in ("Jc", "Qc", "9c"):
        click_card(page, card)
    with page.expect_response(lambda r: "/move" in r.url) as response:
        page.click("#send-selection")
    assert response.value.status == 400
    settled(page)
    expect(page.locator("#error")).to_contain_text("9c")  # the reader says which card does not fit
    expect(page.locator("#selection")).to_have_text("Jc Qc 9c")
    click_card(page, "9c")  # unselect it
    click_card(page, "Kc")
    expect(page.locator("#selection")).to_have_text("Jc Qc Kc")
    send(page, "#send-selection")
    events = page.locator("#events li").all_inner_texts()
    # the person's play and the steps played for them, one line
    assert events[2] == "player_0 (you): completes a meld with Jc Qc Kc and lays 8s 9s Ts", events
    for card in ("Jc", "Qc", "Kc", "8s", "9s", "Ts"):
        assert hand_card(page, card).count() == 0, card  # laid on the table
    page.click("#all-moves-box summary")
    assert [m.split()[0] for m in page.locator("#all-moves button").all_inner_texts()] == ["discard"] * 9
    send(page, '#all-moves button[data-move="discard Th"]')
    events = page.locator("#events li").all_inner_texts()
    assert events[3] == "player_0 (you): discards Th", events
    assert events[4].startswith("player_1 (heuristic): ")
    expect(page.locator("#status")).to_have_text("Your turn.")


def test_a_saved_match_opens_in_the_replay_viewer(page, tmp_path):
    """A match file (an Odin match of random play, saved by the env) chosen in the file
    input opens in the replay page: a step slider over every move and the view of a seat."""
    import random

    from cardenvs.envs import make
    from cardenvs.replay import match_to_json

    env = make("odin", single_round=True)
    env.reset(seed=4)
    rng = random.Random(4)
    while env.agents:
        _, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else rng.choice(env.unwrapped.legal_actions()))
    record = env.unwrapped.match_record()
    path = tmp_path / "odin-match.json"
    path.write_text(match_to_json(record))
    with page.expect_response(lambda r: r.url.endswith("/api/replay")) as response:
        page.set_input_files("#replay-file", str(path))
    assert response.value.ok, response.value.text()
    expect(page.locator("#replay")).to_be_visible()
    replay = page.frame_locator("#replay-frame")
    expect(replay.locator("#table svg")).to_be_visible()
    slider = replay.locator("#slider")
    assert int(slider.get_attribute("max")) == len(record.actions)
    replay.locator("#last").click()
    expect(slider).to_have_value(str(len(record.actions)))
    assert replay.locator("#moves li").count() == len(record.actions)
    page.click("#close-replay")
    expect(page.locator("#setup")).to_be_visible()
