"""What readers of the store need without SQLAlchemy (``laguna status`` and
``laguna environments`` read the working directory's store with the standard
library's sqlite3, :mod:`laguna.deploy.readonly`): the schema's revision and
the project of the command line's environments.
"""

from __future__ import annotations

#: the newest migration (``migrations/versions``): the revision a schema made
#: from the models is stamped with; a test keeps it equal to the scripts' head
HEAD_REVISION = "0010"

#: the project of environments made from the command line
LOCAL_PROJECT = "local"
