"""The browser front end (``cardenvs serve``, the ``web`` extra): a local page where a
person plays a seat against the agents, and opens saved matches in the replay viewer.

:mod:`cardenvs.web.table` steps a match and needs no web library;
:mod:`cardenvs.web.app` is the Starlette application that serves it with the page in
``static/``.
"""
