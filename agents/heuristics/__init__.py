"""The rule-based players, one module per game (``cardenvs.agents.heuristics.<game>``):
what the evaluations and the trainers measure against. Each is compiled code over the
game's observation; :func:`cardenvs.agents.make_agent` imports one on first use."""
