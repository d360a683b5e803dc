"""Training (the ``train`` extra: torch): the self-play PPO trainer (``trainer``), its
seat-wise advantages (``selfplay``), Ray rollout workers (``distributed``), labels from
rollout search (``expert``) and Rami 51's card scorer (``card_scorer``). Nothing in the
environments imports this package; playing a trained agent needs none of it."""
