"""Hugging Face hub ids for `pe-verify model`: ``owner/name`` or ``owner/name@revision`` to the model's
``config.json``, found as transformers' ``from_pretrained`` finds it.

`parse_hub_id` tells, without any look-up, whether a text has the form of a hub id. `hub_config` finds that
repository's ``config.json``: in the local hub cache first (``HF_HUB_CACHE``, else ``HF_HOME/hub``, else
``~/.cache/huggingface/hub``; the snapshot of ``refs/<revision>``, ``main`` by default, or the commit named),
else by downloading that one file into the cache when the hub can be reached. ``HF_HUB_OFFLINE=1`` keeps it to
the cache. A cached revision is read as it is, without asking the hub whether the branch has moved since (a
commit names one snapshot for good). Whatever stops it (offline, no connection, a gated or missing repository,
revision or file) is a `HubError` in one line.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: The file read from a repository.
CONFIG_FILE = "config.json"

#: Seconds to wait for the hub's answer before taking it as unreachable.
HUB_TIMEOUT = 10.0

#: An owner or a repository name as the hub allows them: ASCII letters, digits, '_', '.' and '-', at most 96,
#: neither starting nor ending with '.' or '-' (and, checked apart, no '--' or '..', no '.git' at the end).
_PART = r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?"
#: A branch, a tag, a commit or a ref such as ``refs/pr/1``.
_REVISION = r"[A-Za-z0-9_.][A-Za-z0-9_./+-]{0,199}"
_HUB_ID = re.compile(rf"(?P<repo>{_PART}/{_PART})(?:@(?P<revision>{_REVISION}))?")

_TRUE = frozenset({"1", "ON", "YES", "TRUE"})


class HubError(ValueError):
    """A hub id whose config cannot be had: one line saying why and what to do."""


@dataclass(frozen=True)
class HubConfig:
    """Where a repository's ``config.json`` was found: the local file and the commit it belongs to."""

    repo_id: str
    revision: str | None
    path: Path
    commit: str | None

    @property
    def name(self) -> str:
        """The hub id at the commit read (``owner/name@commit``), else at the revision asked for."""
        at = self.commit or self.revision
        return f"{self.repo_id}@{at}" if at else self.repo_id


def parse_hub_id(text: str) -> tuple[str, str | None] | None:
    """``(repo_id, revision)`` when `text` has the form of a hub id (``owner/name``, ``@revision`` optional),
    else None. Nothing is looked up."""
    match = _HUB_ID.fullmatch(text)
    if match is None:
        return None
    repo_id, revision = match.group("repo", "revision")
    if "--" in repo_id or ".." in repo_id or repo_id.endswith(".git"):
        return None
    if revision is not None and (".." in revision or "//" in revision or revision.endswith("/")):
        return None
    return repo_id, revision


def cache_dir() -> str:
    """The hub cache folder named by the environment now, by the library's rule: ``HF_HUB_CACHE`` (or the
    older ``HUGGINGFACE_HUB_CACHE``), else ``HF_HOME/hub``, else ``$XDG_CACHE_HOME/huggingface/hub``, else
    ``~/.cache/huggingface/hub``."""
    env = os.environ
    folder = env.get("HF_HUB_CACHE") or env.get("HUGGINGFACE_HUB_CACHE")
    if not folder:
        home = env.get("HF_HOME") or os.path.join(env.get("XDG_CACHE_HOME") or "~/.cache", "huggingface")
        folder = os.path.join(home, "hub")
    return os.path.expandvars(os.path.expanduser(folder))


def offline() -> bool:
    """Whether the hub is not to be asked: ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) set now or when
    the library was loaded."""
    from huggingface_hub import constants

    flag = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return bool(constants.HF_HUB_OFFLINE) or flag.strip().upper() in _TRUE


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0].strip() if lines else type(error).__name__


def _commit_of(path: str) -> str | None:
    """The commit of a file in the cache's ``snapshots/<commit>/`` folder."""
    folder = Path(path).parent
    return folder.name if folder.parent.name == "snapshots" else None


def _network_errors() -> tuple[type[BaseException], ...]:
    """The errors of a failed connection: OSError (the library's requests-based versions raise its
    subclasses) and the transport errors of the httpx-based ones."""
    errors: list[type[BaseException]] = [OSError]
    for name in ("httpx", "httpx2"):
        error = getattr(sys.modules.get(name), "TransportError", None)
        if isinstance(error, type) and issubclass(error, BaseException):
            errors.append(error)
    return tuple(errors)


def _probe(url: str) -> None:
    """One request to `url` and no retry, whatever the library's version: a connection that fails raises at
    once, where the library's own requests retry for tens of seconds in some versions. The answer is left to
    the download."""
    from huggingface_hub.utils import http_backoff

    http_backoff(
        "HEAD", url, max_retries=0, retry_on_exceptions=(), retry_on_status_codes=(), timeout=HUB_TIMEOUT
    )


@contextlib.contextmanager
def _quietly() -> Iterator[None]:
    """The library's download bar and its warnings (a retry after a server error) off for the while: a
    config is a few kilobytes, the command has its own bar, and what goes wrong is told in one line. A bar
    that ``HF_HUB_DISABLE_PROGRESS_BARS`` decides is left as it says."""
    from huggingface_hub import constants
    from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars

    logger = logging.getLogger("huggingface_hub")
    level = logger.level
    bar_on = constants.HF_HUB_DISABLE_PROGRESS_BARS is None and not are_progress_bars_disabled()
    logger.setLevel(logging.ERROR)
    if bar_on:
        disable_progress_bars()
    try:
        yield
    finally:
        logger.setLevel(level)
        if bar_on:
            enable_progress_bars()


def hub_config(repo_id: str, revision: str | None = None, *, no_network: bool | None = None) -> HubConfig:
    """The local ``config.json`` of hub repository `repo_id` at `revision` (default ``main``): from the
    cache, else downloaded (see the module). `no_network` None follows ``HF_HUB_OFFLINE``."""
    from huggingface_hub import hf_hub_download, hf_hub_url, try_to_load_from_cache
    from huggingface_hub.utils import (
        EntryNotFoundError,
        GatedRepoError,
        HfHubHTTPError,
        HFValidationError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    shown = f"{repo_id}@{revision}" if revision else repo_id
    cache = cache_dir()
    if no_network is None:
        no_network = offline()

    def unreachable(why: str) -> HubError:
        return HubError(
            f"{shown} is neither a file nor a folder, nor in the local Hugging Face cache ({cache}), and the "
            f"hub cannot be reached ({why}): download it once with network access, or name a {CONFIG_FILE}"
        )

    try:
        found = try_to_load_from_cache(repo_id, CONFIG_FILE, cache_dir=cache, revision=revision)
    except HFValidationError as exc:
        raise HubError(f"{shown} is no hub id: {_first_line(exc)}") from None
    if isinstance(found, str):
        return HubConfig(repo_id, revision, Path(found), _commit_of(found))
    if no_network and found is not None:  # the cache records that the hub has no such file there
        raise HubError(f"{shown} has no {CONFIG_FILE} (the local Hugging Face cache records it absent)")
    if no_network:
        raise unreachable("offline: HF_HUB_OFFLINE is set")
    try:
        _probe(hf_hub_url(repo_id, CONFIG_FILE, revision=revision))
        with _quietly():
            path = hf_hub_download(
                repo_id, CONFIG_FILE, revision=revision, cache_dir=cache, etag_timeout=HUB_TIMEOUT
            )
    except HFValidationError as exc:
        raise HubError(f"{shown} is no hub id: {_first_line(exc)}") from None
    except GatedRepoError:
        raise HubError(
            f"{repo_id} is a gated repository on the Hugging Face hub: accept its terms on its page and log "
            f"in with a token that has access, or name a {CONFIG_FILE}"
        ) from None
    except RepositoryNotFoundError:
        raise HubError(
            f"{repo_id} is neither a file nor a folder, nor a model repository on the Hugging Face hub (or "
            "it is private and no token with access is given)"
        ) from None
    except RevisionNotFoundError:
        raise HubError(f"{repo_id} has no revision {revision} on the Hugging Face hub") from None
    except LocalEntryNotFoundError as exc:
        raise HubError(f"{shown}: {CONFIG_FILE} could not be fetched: {_first_line(exc)}") from None
    except EntryNotFoundError:
        raise HubError(f"{shown} has no {CONFIG_FILE} on the Hugging Face hub") from None
    except HfHubHTTPError as exc:
        raise HubError(f"the Hugging Face hub refused {shown}: {_first_line(exc)}") from None
    except _network_errors() as exc:
        raise unreachable(_first_line(exc)) from None
    return HubConfig(repo_id, revision, Path(path), _commit_of(path))
