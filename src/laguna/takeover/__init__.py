"""``laguna takeover murano``: a Murano installation's database, imported whole
into laguna's store with its ids (docs/TAKEOVER.md).

One module per kind of row (:mod:`.categories`, :mod:`.packages`,
:mod:`.environments` with their sessions and deployments, :mod:`.templates`,
:mod:`.stats`), each adding what the store does not hold yet; :mod:`.source`
reads Murano's tables at migration heads 010 to 016, :mod:`.report` counts
and explains, :mod:`.run` puts them in order in one transaction.
"""
