"""``python -m audit``: the same CLI as ``shoe-audit``."""

from audit.cli import main

main()
