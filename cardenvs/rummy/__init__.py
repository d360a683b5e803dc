"""The rummy layer: what Rami 51, Frime and Classes share.

- :mod:`cardenvs.rummy.melds`: the meld rules as data (a rules vector) and meld validity
  and extension on card-count vectors;
- :mod:`cardenvs.rummy.split`: can a whole hand be laid as melds (frime's going out);
- :mod:`cardenvs.rummy.contract`: does a hand hold a contract (classes);
- :mod:`cardenvs.rummy.table`: the table of melds every rummy lays, the turn mechanics
  (draw, take the discard, buy, discard, the stock rebuilt from the discards), and the
  table's observation block, codecs and move strings;
- :mod:`cardenvs.rummy.narration`: what a person at the table is told of a draw or a take
  (plain Python, used by Rami 51 and Classes as it is, by Frime with its own events).

Each game's own search (Rami 51's opening planner, ``cardenvs/games/rami51/plan.py``)
and its phase machine stay in the game's module. Every kernel here is a leaf kernel
that a game's own kernels and step hooks call as a module global: numba caches no function that
takes or closes over another compiled function.
"""
