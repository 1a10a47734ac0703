"""The laguna command with the fake front end registered, for subprocess tests."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

from unit.deploy.fakes import registry  # noqa: E402

from laguna.cli.main import cli  # noqa: E402
from laguna.cli.workdirs import Wiring  # noqa: E402

if __name__ == "__main__":
    cli.main(sys.argv[1:], obj=Wiring(registry()), prog_name="laguna")
