"""The investigator web app (issue 12): ``shoe-audit serve``.

:mod:`~audit.web.app` (the Starlette app and its routes), :mod:`~audit.web.pages`
(what each page reads), :mod:`~audit.web.data` (reading the database without
holding it), :mod:`~audit.web.session` (signed cookies, CSRF), :mod:`~audit.web.urls`
(the stable URLs) and :mod:`~audit.web.server` (uvicorn). Starlette is imported
only here, so the rest of shoe-audit starts without it.
"""
