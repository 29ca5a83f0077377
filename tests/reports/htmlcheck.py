"""A small HTML reader for tests (stdlib html.parser): elements, links, tables by id."""

from __future__ import annotations

from html.parser import HTMLParser


class Page(HTMLParser):
    """Parses a page; keeps tags seen, links, script tags, and tables' cell text by id."""

    VOID = frozenset({"meta", "link", "br", "img", "input", "hr", "rect", "path", "circle", "line"})

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.links: list[str] = []
        self.text: list[str] = []
        self.tables: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._stack: list[str] = []
        self.unbalanced: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag not in self.VOID:
            self._stack.append(tag)
        if tag == "a" and a.get("href"):
            self.links.append(str(a["href"]))
        if tag == "table" and a.get("id"):
            self._table = str(a["id"])
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if self._stack and self._stack[-1] == tag:
            self._stack.pop()
        else:
            self.unbalanced.append(tag)
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def count(self, tag: str, **attrs: str) -> int:
        return sum(
            1
            for t, a in self.tags
            if t == tag and all((a.get(k) or "").split().count(v) for k, v in attrs.items())
        )

    def body_rows(self, table_id: str) -> list[list[str]]:
        return self.tables[table_id][1:]
