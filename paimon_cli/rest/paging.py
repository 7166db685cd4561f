"""Paging and name filters of the REST list endpoints (``maxResults``, ``pageToken``, the
``...NamePattern`` and ``tagNamePrefix`` parameters).

Invariants: a list is ordered by its key (names, or snapshot ids) before it is cut, and the page
token is the key of the last item sent, so a page never repeats or skips an item while the list
is unchanged, and an item added or removed between pages affects only the pages after it. The
last page has ``nextPageToken`` null (Java's server sends it so; pypaimon 2.1 reads the key).
A pattern is SQL ``LIKE`` with ``%`` (any run of characters), as the spec describes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from paimon_cli.rest.errors import bad_request

T = TypeVar("T")
MAX_PAGE = 10_000  # the page size when none (or a bigger one) is asked for


def max_results(query: dict[str, str]) -> int:
    """The page size asked for; 400 when it is not a positive integer."""
    raw = query.get("maxResults")
    if raw is None or raw == "":
        return MAX_PAGE
    try:
        n = int(raw)
    except ValueError:
        raise bad_request(f"bad maxResults {raw!r}: a positive integer") from None
    if n <= 0:
        raise bad_request(f"bad maxResults {raw!r}: a positive integer")
    return min(n, MAX_PAGE)


def like(pattern: str | None) -> Callable[[str], bool]:
    """The test of a name against a SQL ``LIKE`` pattern with ``%``; everything when empty."""
    if not pattern:
        return lambda _name: True
    rx = re.compile("".join(".*" if c == "%" else re.escape(c) for c in pattern), re.DOTALL)
    return lambda name: rx.fullmatch(name) is not None


def page(
    items: Sequence[T],
    query: dict[str, str],
    key: Callable[[T], Any] = lambda x: x,
    token_of: Callable[[str], Any] = lambda t: t,
) -> tuple[list[T], str | None]:
    """The page of ``items`` after ``pageToken`` (ordered by ``key``; ``token_of`` turns a token
    back into a key) and the token of the next page (None on the last)."""
    size = max_results(query)
    ordered = sorted(items, key=key)
    token = query.get("pageToken")
    if token:
        try:
            after = token_of(token)
        except ValueError:
            raise bad_request(f"bad pageToken {token!r}") from None
        ordered = [x for x in ordered if key(x) > after]
    chunk = ordered[:size]
    more = len(ordered) > size
    return chunk, (str(key(chunk[-1])) if more and chunk else None)
