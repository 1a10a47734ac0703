"""``python3 -m laguna.agent``: the same as the ``laguna-agent`` program."""

import sys

from laguna.agent.main import main

sys.exit(main())
