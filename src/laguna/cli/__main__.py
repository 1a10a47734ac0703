"""``python -m laguna.cli``: the ``laguna`` command."""

from laguna.cli.main import main

main()
