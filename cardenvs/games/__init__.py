"""The games. Each game is one package of this folder (see ``docs/adding-a-game.md``): its
``__init__`` gathers the names of the game protocol (:class:`cardenvs.core.protocol.GameProtocol`)
from its modules and holds ``SPEC``, its registry entry. Registering it here is the one line
that makes it known to ``make``, ``make_vec``, the CLI and the adapters."""

from cardenvs.core.registry import register
from cardenvs.games import classes, frime, odin, president, rami51

for _game in (president, odin, rami51, frime, classes):
    register(_game.SPEC)
