"""Where the client keeps a remembered login's refresh token, and only it (docs/sdk.md, "Staying
signed in"): a store of the caller's, or a file created with mode 0600 and replaced whole."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Optional, Protocol, Union


class RefreshTokenStore(Protocol):
    """Keeps one refresh token across restarts. ``load`` answers None when none is kept."""

    def load(self) -> Optional[str]: ...

    def save(self, token: str) -> None: ...

    def clear(self) -> None: ...


class RefreshTokenFile:
    """A file readable by its owner only: each token is written to a new file created with mode
    0600 (never chmod-ed after), then renamed over the old one, so a crash leaves one whole token."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        self.path = Path(path)

    def load(self) -> Optional[str]:
        try:
            text = self.path.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        return text or None

    def save(self, token: str) -> None:
        fresh = self.path.with_name(f"{self.path.name}.{secrets.token_hex(6)}.tmp")
        fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(token + "\n")
            os.replace(fresh, self.path)
        except BaseException:
            fresh.unlink(missing_ok=True)
            raise

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)
