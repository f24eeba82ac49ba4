"""The fenced code blocks of README.md and docs/**/*.md, for the docs tests."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_FENCE = re.compile(r"^(?P<fence>```+)(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)


@dataclass(frozen=True)
class Block:
    page: str  # repository path
    line: int  # the fence's line, 1-based
    lang: str
    body: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}:{self.lang or 'plain'}"


def pages() -> list[Path]:
    docs = sorted(p for p in (ROOT / "docs").rglob("*.md") if "hooks" not in p.parts)
    return [ROOT / "README.md", *docs]


def blocks() -> list[Block]:
    out = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            out.append(Block(str(page.relative_to(ROOT)), line, match["lang"].lower(), match["body"]))
    return out
