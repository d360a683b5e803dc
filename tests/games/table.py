"""What the scripted rules tests of every game do at the table: the legal moves as text,
moves played by their text (each checked legal first), the state as a dict."""

from __future__ import annotations


def legal(env) -> set[str]:
    return {env.action_to_str(a) for a in env.legal_actions()}


def act(env, *texts: str) -> None:
    for text in texts:
        a = env.str_to_action(text)
        assert a in env.legal_actions(), (text, sorted(legal(env)))
        env.step(a)


def st(env) -> dict:
    return env.state_dict()
