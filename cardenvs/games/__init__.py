"""The games. Each game is one package of this folder (see ``docs/adding-a-game.md``);
registering it here is the one line that makes it known to ``make``, ``make_vec``, the CLI
and the adapters."""

from cardenvs.core.registry import register
from cardenvs.games import classes, frime, odin, president, rami51

for _game in (president, odin, rami51, frime, classes):
    register(_game.SPEC)
