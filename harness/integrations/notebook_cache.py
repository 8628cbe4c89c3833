"""A content-addressed cache for mkdocs-jupyter's notebook conversion.

mkdocs-jupyter (0.26) converts every notebook on every build, and its own cache
(``cache: true``) does not survive mkdocs-static-i18n: each language build evicts,
in ``on_post_build``, every entry the other language wrote, so every build converts
every notebook again (mkdocs-jupyter issues 161, 245, 250). Its key also leaves out
the versions of the packages that render the page.

This module keys one conversion on everything its output depends on:

* the notebook's bytes;
* every mkdocs-jupyter option that reaches ``nb2html`` or the table of contents
  (after ``execute_ignore`` is applied), the theme and the page language;
* the versions of the packages that render it (mkdocs-jupyter, nbconvert, nbformat,
  jupytext, mistune, pygments, jinja2, markdown, mkdocs) and the bytes of
  mkdocs-jupyter's own templates (an editable install changes without a version);
* the user's nbconvert configuration (``jupyter_nbconvert_config.*``), which
  ``nb2html`` loads;
* :data:`FORMAT`, bumped whenever an entry's layout or meaning changes.

An entry is a JSON file named by its key under ``.cache/harness/notebooks/``,
written atomically (a half-written entry is never read; an unreadable one is a
miss), so the folder is safe to delete at any time. A notebook that mkdocs-jupyter
*executes* is never cached: its output depends on the kernel's environment,
which no key can see. Entries unused for :data:`MAX_AGE_DAYS` are removed at the
end of a build; entries of the other language are left alone.

A cold conversion is also cheaper: nbconvert builds a new exporter, and with it a
new Jinja environment, for every notebook and recompiles its templates each time.
Here the exporters share one Jinja bytecode cache (:class:`SharedTemplates`, keyed
on each template's source), so each template compiles once, and a later build
loads it compiled from ``.cache/harness/templates/``.

On a cold cache the conversions are most of a build. :func:`prefetch` makes them
ahead in a forked process (Linux, no other thread running) while the build renders
the other pages on the machine's other core; each entry it writes is the one the build
would write, and a page whose entry is not there converts its notebook itself.

Nothing here is specific to this site: it could be offered upstream to
mkdocs-jupyter as a replacement for its cache (see CONTRIBUTING.md). The site's
MkDocs plugin installs it (:meth:`NotebookCache.install`) from ``on_pre_page``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import marshal
import os
import pathlib
import signal
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from importlib import metadata
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from typing import Any

from harness.integrations.cache_files import MAX_AGE_DAYS, prune_unused, read_entry, write_entry
from harness.records.files import write_atomically

__all__ = ["FORMAT", "MAX_AGE_DAYS", "PREFETCH_WAIT", "Conversion", "NotebookCache", "Prefetch",
           "SharedTemplates", "nbconvert_user_config", "prefetch", "render_fingerprint"]

FORMAT = 1
"""Bump when an entry's layout or meaning changes: old entries then never match."""

#: Packages whose code shapes a converted page.
RENDER_PACKAGES = ("mkdocs-jupyter", "nbconvert", "nbformat", "jupytext", "mistune",
                   "pygments", "jinja2", "markdown", "mkdocs")


@dataclass(frozen=True)
class Conversion:
    """What ``nb2html`` and the table of contents receive for one notebook."""

    execute: bool
    kernel_name: str
    theme: str
    allow_errors: bool
    show_input: bool
    no_input: bool
    no_prompt: bool
    remove_tag_config: dict
    highlight_extra_classes: str
    include_requirejs: bool
    custom_mathjax_url: str
    toc_depth: int
    ignore_h1_titles: bool

    @classmethod
    def of(cls, options: Mapping[str, Any], source: str) -> Conversion:
        """The conversion mkdocs-jupyter's ``on_pre_page`` would run for ``source``."""
        execute = bool(options["execute"])
        if any(pathlib.PurePath(source).match(p) for p in options.get("execute_ignore") or []):
            execute = False
        return cls(execute=execute, **{k: options[k] for k in (
            "kernel_name", "theme", "allow_errors", "show_input", "no_input", "no_prompt",
            "remove_tag_config", "highlight_extra_classes", "include_requirejs",
            "custom_mathjax_url", "toc_depth", "ignore_h1_titles")})

    def nb2html_arguments(self) -> dict[str, Any]:
        arguments = asdict(self)
        del arguments["toc_depth"], arguments["ignore_h1_titles"]
        return arguments


def render_fingerprint(*, theme: str = "", language: str = "") -> str:
    """A digest of everything outside the notebook and its options that shapes the page."""
    digest = hashlib.sha256(f"format={FORMAT}\ntheme={theme}\nlanguage={language}\n".encode())
    for name in RENDER_PACKAGES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "absent"
        digest.update(f"{name}=={version}\n".encode())
    import mkdocs_jupyter

    templates = Path(mkdocs_jupyter.__file__).parent / "templates"
    for path in sorted(p for p in templates.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(templates).as_posix()}\n".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    # nb2html starts from the user's nbconvert configuration (jupyter_nbconvert_config.*).
    digest.update(json.dumps(nbconvert_user_config(), sort_keys=True, default=repr).encode())
    return digest.hexdigest()


def nbconvert_user_config() -> Any:
    """The configuration ``nb2html`` starts from: what ``NbConvertApp().load_config_file()``
    loads (``jupyter_config.*`` and ``jupyter_nbconvert_config.*`` on Jupyter's config
    path), loaded by jupyter_core's application class under nbconvert's application name,
    so the same files and sections, without importing nbconvert: a build whose
    notebooks all come from the cache then never imports it (~0.5 s)."""
    from jupyter_core.application import JupyterApp

    class NbConvertApp(JupyterApp):  # nbconvert's class and app name: same sections, files
        name = "jupyter-nbconvert"

    app = NbConvertApp()
    app.load_config_file()
    return app.config


class _Bucket:
    """What Jinja's loader asks of a bytecode-cache bucket: a ``code`` slot."""

    def __init__(self, key: str, code: Any) -> None:
        self.key, self.code = key, code


class SharedTemplates:
    """A Jinja bytecode cache shared by every environment given it: in memory, and
    on disk under ``folder`` when one is given (so a later build skips compiling).

    Jinja's loader calls ``get_bucket`` and, after compiling, ``set_bucket`` on
    ``environment.bytecode_cache``. The key holds the template's source, the
    environment's compile settings, and the Jinja and Python versions, so a changed
    template, setting or interpreter compiles again; an unreadable file is a miss.
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder) if folder else None
        self.code: dict[str, Any] = {}
        try:
            jinja = metadata.version("jinja2")
        except metadata.PackageNotFoundError:  # pragma: no cover - nbconvert needs it
            jinja = "absent"
        self._runtime = f"jinja2=={jinja} {sys.implementation.cache_tag} {MAGIC_NUMBER.hex()}"

    @staticmethod
    def _settings(environment: Any) -> str:
        names = ("block_start_string", "block_end_string", "variable_start_string",
                 "variable_end_string", "comment_start_string", "comment_end_string",
                 "line_statement_prefix", "line_comment_prefix", "trim_blocks",
                 "lstrip_blocks", "newline_sequence", "keep_trailing_newline", "optimized",
                 "is_async", "autoescape")
        return repr((*(repr(getattr(environment, n, None)) for n in names),
                     *sorted(getattr(environment, "extensions", {}))))

    def get_bucket(self, environment: Any, name: str, filename: str | None,
                   source: str) -> _Bucket:
        digest = hashlib.sha256(f"{self._runtime}\n{self._settings(environment)}\n"
                                f"{name}\n{filename}\n".encode())
        digest.update(source.encode())
        key = digest.hexdigest()
        code = self.code.get(key)
        if code is None and self.folder is not None:
            with contextlib.suppress(OSError, ValueError, EOFError, TypeError):
                code = marshal.loads((self.folder / f"{key}.code").read_bytes())
                self.code[key] = code
        return _Bucket(key, code)

    def set_bucket(self, bucket: _Bucket) -> None:
        self.code[bucket.key] = bucket.code
        if self.folder is None:
            return
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomically(self.folder / f"{bucket.key}.code", marshal.dumps(bucket.code))

    @contextlib.contextmanager
    def exporters(self) -> Iterator[None]:
        """mkdocs-jupyter's exporters, sharing compiled templates while the block runs."""
        from mkdocs_jupyter import nbconvert2

        cache = self
        saved = nbconvert2.HTMLExporter, nbconvert2.MarkdownExporter

        def sharing(base: type) -> type:
            class Sharing(base):  # type: ignore[misc, valid-type]
                def _create_environment(self):  # noqa: ANN202 - nbconvert's signature
                    environment = super()._create_environment()
                    environment.bytecode_cache = cache
                    return environment

            Sharing.__name__ = Sharing.__qualname__ = base.__name__
            return Sharing

        nbconvert2.HTMLExporter, nbconvert2.MarkdownExporter = map(sharing, saved)
        # nb2html keeps the kernel language of the previous notebook when one has no
        # kernelspec: start every conversion from its default instead.
        nbconvert2.kernel_lang = "python"
        try:
            yield
        finally:
            nbconvert2.HTMLExporter, nbconvert2.MarkdownExporter = saved


_TEMPLATES = SharedTemplates()


def convert(source: Path, conversion: Conversion,
            templates: SharedTemplates | None = None) -> dict[str, Any]:
    """Convert one notebook as mkdocs-jupyter does: its HTML, TOC tokens and h1 title."""
    from mkdocs_jupyter import convert as jupyter_convert
    from mkdocs_jupyter.plugin import _get_nb_toc_tokens

    with (templates or _TEMPLATES).exporters():
        content = jupyter_convert.nb2html(str(source), **conversion.nb2html_arguments())
        toc_tokens, title = _get_nb_toc_tokens(str(source), conversion.toc_depth)
    return {"content": content, "toc_tokens": toc_tokens, "title": title}


class NotebookCache:
    """Converted notebooks under ``folder``, one JSON file per key."""

    def __init__(self, folder: Path, fingerprint: str,
                 templates: SharedTemplates | None = None) -> None:
        self.folder = Path(folder)
        self.fingerprint = fingerprint
        self.hits = self.misses = 0
        self.templates = templates or SharedTemplates(self.folder / "templates")
        """Compiled Jinja templates, for nbconvert's exporters and any other environment."""
        self.prefetch: Prefetch | None = None
        """A process converting ahead into this folder (:func:`prefetch`), if any."""

    def key(self, source: Path, conversion: Conversion) -> str:
        digest = hashlib.sha256(self.fingerprint.encode())
        digest.update(json.dumps(asdict(conversion), sort_keys=True, default=sorted).encode())
        digest.update(hashlib.sha256(Path(source).read_bytes()).digest())
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def load(self, key: str) -> dict[str, Any] | None:
        return read_entry(self._path(key), key)

    def store(self, key: str, entry: dict[str, Any]) -> None:
        write_entry(self._path(key), key, entry)

    def converted(self, source: Path, conversion: Conversion) -> dict[str, Any]:
        """The conversion of ``source``, from the cache when its key is there."""
        if conversion.execute:  # executed output depends on the kernel: never cached
            self.misses += 1
            return convert(source, conversion, self.templates)
        key = self.key(source, conversion)
        entry = self.load(key)
        if entry is None and self.prefetch is not None and self.prefetch.wait_for(
                self._path(key)):
            entry = self.load(key)
        if entry is None:
            self.misses += 1
            entry = convert(source, conversion, self.templates)
            self.store(key, entry)
        else:
            self.hits += 1
        return entry

    def install(self, page: Any, options: Mapping[str, Any]) -> None:
        """Make ``page.render`` (a notebook page mkdocs-jupyter has prepared) read
        its conversion from this cache. mkdocs-jupyter's own ``on_pre_page`` must
        have run: this keeps its other page settings (notebook URL, data files)."""
        from mkdocs.structure.toc import get_toc

        source = Path(page.file.abs_src_path)
        conversion = Conversion.of(options, str(source))
        cache = self

        def render(config: Any, files: Any) -> None:
            entry = cache.converted(source, conversion)
            page.content = entry["content"]
            page.toc = get_toc(entry["toc_tokens"])
            if entry.get("title") is not None and not conversion.ignore_h1_titles:
                page.title = entry["title"]

        page.render = render

    def prune(self, max_age_days: float = MAX_AGE_DAYS) -> int:
        """Remove entries (and stray temporary files) unused for ``max_age_days``."""
        folders = {self.folder, *([self.templates.folder] if self.templates.folder else [])}
        return prune_unused(folders, ("*.json", "*.code"), max_age_days)


class Prefetch:
    """A forked process converting notebooks ahead, started by :func:`prefetch`.

    Nothing depends on it: a page whose entry is not there yet waits only while the
    process runs (at most :data:`PREFETCH_WAIT` seconds), then converts its notebook
    itself, as without it."""

    def __init__(self, pid: int, paths: set[Path]) -> None:
        self.pid = pid
        self.paths = paths
        """The entries it writes (unless a conversion fails or warns)."""
        self.done = False

    def running(self) -> bool:
        if not self.done:
            try:
                self.done = os.waitpid(self.pid, os.WNOHANG)[0] != 0
            except ChildProcessError:
                self.done = True
        return not self.done

    def wait_for(self, path: Path) -> bool:
        """Wait until ``path``, an entry it writes, exists or the process ends; whether
        it exists."""
        if path not in self.paths:
            return path.exists()
        deadline = time.monotonic() + PREFETCH_WAIT
        while not path.exists() and self.running():
            if time.monotonic() > deadline:
                self.stop()
                break
            time.sleep(0.01)
        return path.exists()

    def stop(self) -> None:
        """End the process (its remaining work is no longer needed) and reap it."""
        if self.running():
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGTERM)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.done = True


PREFETCH_WAIT = 120.0
"""Seconds a page waits for the prefetching process before converting by itself."""


def prefetch(jobs: list[tuple[NotebookCache, Path, Conversion]]) -> Prefetch | None:
    """Convert, in order, the ``jobs`` whose entry is missing, in a forked process, while
    the build goes on rendering other pages; None when there is nothing to convert or
    forking is not safe here (not Linux, or threads running: ``mkdocs serve`` rebuilds).

    The process writes each entry as :meth:`NotebookCache.converted` would, with the same
    key and :func:`convert`; an entry whose conversion logged a warning is left to the
    build, which converts it again and shows the warning. Its output is discarded."""
    todo = []
    for cache, source, conversion in jobs:
        if conversion.execute:
            continue  # never cached
        with contextlib.suppress(OSError):
            key = cache.key(source, conversion)
            if not cache._path(key).exists():
                todo.append((cache, source, conversion, key))
    if not todo or not (sys.platform.startswith("linux") and hasattr(os, "fork")
                        and threading.active_count() == 1):
        return None
    pid = os.fork()
    if pid:
        return Prefetch(pid, {cache._path(key) for cache, _, _, key in todo})
    status = 1
    try:  # the child: never returns into the build
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        warned = []
        factory = logging.getLogRecordFactory()

        def record_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = factory(*args, **kwargs)
            if record.levelno >= logging.WARNING:
                warned.append(record)
            return record

        logging.setLogRecordFactory(record_factory)
        for cache, source, conversion, key in todo:
            warned.clear()
            try:
                entry = convert(source, conversion, cache.templates)
            except Exception:  # noqa: BLE001 - the build converts it again and reports
                continue
            if not warned:
                cache.store(key, entry)
        status = 0
    finally:
        os._exit(status)
