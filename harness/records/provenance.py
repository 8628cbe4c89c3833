"""Where a record set's files come from, verified by something other than the files.
No torch import.

A workflow signs the sets it records: ``<device>.sha256`` lists each file's sha256
(``<build>/<name>``, with ``# run N``), and ``<device>.sha256.sig`` is an OpenSSH
signature of it (``ssh-keygen -Y sign``, namespace :data:`NAMESPACE`) by a key in the
committed ``results/allowed_signers``. A set recorded by hand is vouched for in review:
``results/unsigned.sha256`` lists its files' sha256 (``publish add``). A file neither
signed nor listed with its content fails the build: an edit, a backdated run or a copy
into another build folder changes a hash no key of the contributor's signs.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import HarnessError, read_text
from harness.text.words import word

__all__ = ["NAMESPACE", "SIGNERS", "UNSIGNED", "Provenance", "grade_text", "listed_missing",
           "sign_set", "unsigned_entries", "verify_set", "vouch"]

NAMESPACE = "que-es-pytorch-records"
SIGNERS = "allowed_signers"
UNSIGNED = "unsigned.sha256"
_LINE = re.compile(r"([0-9a-f]{64})  (\S+)")


@dataclass(frozen=True, kw_only=True)
class Provenance:
    """A set's grade: ``run`` is the signing workflow's run when every file is signed."""

    run: str = ""
    problems: tuple[str, ...] = ()  # each file neither signed nor listed, ``file:line: why``


def grade_text(provenance: Provenance, lang: str) -> str:
    return (word(lang, "grade_signed", run=provenance.run) if provenance.run
            else word(lang, "grade_unsigned"))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _entries(text: str, shown: Path) -> dict[str, tuple[str, int]]:
    """``name → (sha256, line)`` of a ``sha256sum``-style list."""
    found: dict[str, tuple[str, int]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        match = _LINE.fullmatch(line)
        if not match:
            raise HarnessError(f"{shown}:{number}: expected '<sha256>  <build>/<file>' (as "
                               "sha256sum writes it) or a # comment")
        found[match.group(2)] = (match.group(1), number)
    return found


def unsigned_entries(results: Path, shown: Path) -> dict[str, tuple[str, int]]:
    path = results / UNSIGNED
    return _entries(read_text(path, shown / UNSIGNED), shown / UNSIGNED) if path.exists() else {}


def listed_missing(results: Path, shown: Path) -> list[str]:
    """Files the list vouches for that are gone: a deleted set or file is named, not
    quietly shown as «sin medición»."""
    return [f"{shown / UNSIGNED}:{line}: lists {name}, which is missing (deleted? restore it "
            "from git; to retire a set, remove its lines here too)"
            for name, (_, line) in unsigned_entries(results, shown).items()
            if not (results / name).is_file()]


def _ssh_keygen(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    program = shutil.which("ssh-keygen")
    if program is None:
        raise HarnessError("ssh-keygen (OpenSSH) is not installed here; it signs and verifies "
                           "record sets: install OpenSSH's client (apt-get install openssh-client)")
    return subprocess.run([program, *args], input=stdin, capture_output=True, check=False)


def _signed(results: Path, build: str, key: str, shown: Path) -> tuple[str, dict[str, str]]:
    """``(run, {name: sha256})`` of the set's signed list; empty when it has none or the
    signature is not an allowed signer's (then :func:`verify_set` names every file)."""
    manifest = results / build / f"{key}.sha256"
    signature = manifest.with_name(manifest.name + ".sig")
    if not manifest.exists() or not signature.exists():
        return "", {}
    signers = str(results / SIGNERS)
    data = manifest.read_bytes()
    found = _ssh_keygen("-Y", "find-principals", "-f", signers, "-s", str(signature))
    principal = found.stdout.decode().split("\n", 1)[0].strip()
    if found.returncode or not principal or _ssh_keygen(
            "-Y", "verify", "-f", signers, "-I", principal, "-n", NAMESPACE,
            "-s", str(signature), stdin=data).returncode:
        return "", {}
    text = data.decode("utf-8")
    run = re.search(r"^# run (\S+)$", text, re.MULTILINE)
    entries = _entries(text, shown / build / manifest.name)
    return (run.group(1) if run else "?"), {name: sha for name, (sha, _) in entries.items()}


def verify_set(results: Path, build: str, key: str, *, shown: Path,
               unsigned: dict[str, tuple[str, int]]) -> Provenance:
    """The grade of the set ``build``/``key``, and each of its files no allowed signer
    signed and ``unsigned`` does not list with its content."""
    run, signed = _signed(results, build, key, shown)
    files = _set_files(results / build, key)
    problems, all_signed = [], bool(files)
    for path in files:
        name, sha = f"{build}/{path.name}", _sha256(path)
        if signed.get(name) == sha:
            continue
        all_signed, listed = False, unsigned.get(name)
        if listed and listed[0] == sha:
            continue
        why = (f"it changed since {shown / UNSIGNED}:{listed[1]} listed it" if listed
               else f"{shown / UNSIGNED} does not list it")
        problems.append(
            f"{shown / name}:1: not signed by an allowed signer ({shown / SIGNERS}) and {why}; "
            "a record is evidence: restore it from git, record it in the workflow (which "
            "signs it), or vouch for a set recorded by hand with `python -m harness publish "
            f"add {build} {key}`")
    return Provenance(run=run if all_signed else "", problems=tuple(problems))


def _set_files(folder: Path, key: str) -> list[Path]:
    """The record files of set ``key`` in ``folder``, not its signature's."""
    suffixes = (".csv", ".control.csv", ".examples.jsonl", ".env.json")
    return sorted(p for p in folder.iterdir() if any(p.name == key + s for s in suffixes))


def vouch(results: Path, build: str, key: str) -> int:
    """List the set's files in ``unsigned.sha256`` as they are now (call under the records'
    lock); how many lines changed. A set an allowed signer signed needs no listing."""
    from harness.records.commit import write_atomically

    files = _set_files(results / build, key) if (results / build).is_dir() else []
    if not files:  # a mistyped build or device would vouch for nothing, silently
        sets = sorted(f"{p.parent.name} {p.name.removesuffix('.env.json')}"
                      for p in results.glob("*/*.env.json"))
        raise HarnessError(f"no record set for torch {build!r} on {key!r} under {results.name}/; "
                           f"the sets are: {'; '.join(sets) or 'none'}")
    if verify_set(results, build, key, shown=results, unsigned={}).run:
        return 0
    path = results / UNSIGNED
    old = path.read_text(encoding="utf-8") if path.exists() else (
        "# Record files recorded outside CI, unsigned («registrado fuera de CI, sin firma»): the\n"
        "# build accepts each with exactly this content. `python -m harness publish add`\n"
        "# writes it; a change here is a person vouching for a record, seen in review.\n")
    lines = old.splitlines()
    head = [line for line in lines if not _LINE.fullmatch(line)]
    body = sorted([*(x for x in lines if _LINE.fullmatch(x)
                     and not x[66:].startswith(f"{build}/{key}.")),
                   *(f"{_sha256(p)}  {build}/{p.name}" for p in files)], key=lambda x: x[66:])
    text = "\n".join([*head, *body]) + "\n"
    write_atomically(path, text.encode("utf-8"), durable=True)
    return len(set(text.splitlines()) ^ set(old.splitlines()))


def sign_set(results: Path, build: str, key: str, *, private_key: str, run: str) -> Path:
    """Write the set's ``<device>.sha256`` and sign it with ``private_key`` (its text)."""
    folder = results / build
    manifest = folder / f"{key}.sha256"
    lines = [f"# run {run}", *(f"{_sha256(p)}  {build}/{p.name}" for p in _set_files(folder, key))]
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    fd, name = tempfile.mkstemp(prefix="records-key-")  # private (0600), as ssh-keygen wants
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(private_key.strip() + "\n")
        signature = manifest.with_name(manifest.name + ".sig")
        signature.unlink(missing_ok=True)
        done = _ssh_keygen("-Y", "sign", "-f", name, "-n", NAMESPACE, str(manifest))
    finally:
        os.unlink(name)
    if done.returncode:
        raise HarnessError(f"{manifest}: ssh-keygen could not sign it: "
                           f"{done.stderr.decode(errors='replace').strip()}")
    return signature
