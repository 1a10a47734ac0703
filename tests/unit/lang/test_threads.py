"""Deployments in threads of one process (an engine worker runs several at
once): parsing and garbage collection must not mix them up."""

from __future__ import annotations

import concurrent.futures
import threading

from laguna.yaql.engine import parse


def test_expressions_parsed_in_threads_at_once_parse_as_alone() -> None:
    texts = [f"$.items.where($.size > {n}).select($.name + '{n}').take({n % 7})"
             for n in range(400)]
    alone = [str(parse.__wrapped__(text, False)) for text in texts]
    start = threading.Barrier(8)

    def parse_some(offset: int) -> list[str]:
        start.wait()
        return [str(parse.__wrapped__(text, False)) for text in texts[offset::8]]

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(parse_some, range(8)))
    for offset, result in enumerate(results):
        assert result == alone[offset::8]
