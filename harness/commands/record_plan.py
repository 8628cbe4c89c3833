"""The record command's first phase: everything a contributor could have mistyped,
checked before torch is imported, into one :class:`RecordPlan`.

The checkout, its pages and expectations, the records folder, the trial file
and the selection, ``--min-run-time``, the ``HARNESS_EXAMPLE_TIMEOUT``
variable and the installed packages are all checked here, in seconds; a run
that would record nothing says so here. A bad value fails before a single trial
is measured, so no measurement is thrown away on a typo.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.commands.checkout import records_folder, root_of
from harness.commands.publish import INSTALL_HINT, require_filelock
from harness.core.errors import HarnessError, relative, suggest
from harness.core.seconds import parse_seconds
from harness.core.types import TrialSpec
from harness.run.cpu_guard import QuietGuard
from harness.run.examples import timeout_from_env
from harness.sources.checks import check_project, raise_problems
from harness.sources.project import Project
from harness.sources.trials import Method, load_method, load_trials

__all__ = ["MIN_RUN_TIME", "RecordPlan", "make_plan", "require_writable", "seconds",
           "select_trials"]

#: Seconds of steady state per trial: blocked_autorange is steady from about 1 s
#: on; the quick (CI) subset trades some of that for speed.
MIN_RUN_TIME = {"quick": 0.5, "full": 1.0}


def seconds(text: str) -> float:
    """An argparse type: seconds, read as every setting of seconds is."""
    try:
        return parse_seconds(text, what=repr(text))
    except HarnessError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


@dataclass(frozen=True, kw_only=True)
class RecordPlan:
    """What one record run will do, decided without torch."""

    root: Path
    results: Path
    device_type: str
    mode: str
    trials: tuple[TrialSpec, ...]
    """The trials to measure, in order."""
    skipped: tuple[TrialSpec, ...]
    """Chosen trials that do not apply to ``device_type``."""
    project: Project | None
    """The checkout's pages and expectations when examples are observed, else ``None``."""
    min_run_time: float
    example_timeout: float
    guard: QuietGuard | None
    bare_loop: str = ""
    """A recorded trial to time again in a bare loop (``--bare-loop``), or empty."""
    control: bool = False
    """The trials are a same-build control run (``--control``: ``<device>.control.csv``)."""
    method: Method = Method()
    """Runs and blocks per trial (trials.toml's ``[method]``, ``--runs`` overrides)."""
    instructions: bool = False
    """Count instructions with callgrind for the method's trials (``--instructions``)."""
    workloads: Path = Path("trials/workloads.py")
    """The site's workloads file (``--workloads``; default: the checkout's)."""

    @property
    def empty(self) -> bool:
        """Nothing would be recorded (no trial applies, and no example is observed)."""
        return not self.trials and self.project is None


def _method(args: argparse.Namespace) -> Method:
    method = load_method(args.trials_file, root=args.root) if args.only != "examples" \
        else Method()
    runs = getattr(args, "runs", None)
    return dataclasses.replace(method, runs=runs) if runs else method


def select_trials(
    specs: dict[str, TrialSpec], *, mode: str, names: list[str] | None, device_type: str,
    groups: list[str] | None = None,
) -> tuple[list[TrialSpec], list[TrialSpec]]:
    """(trials to run, trials skipped as not applicable to ``device_type``)."""
    if groups:
        known = {s.group for s in specs.values()}
        for group in groups:
            if group not in known:
                raise HarnessError(f"--groups: unknown group {group!r}.{suggest(group, known)}")
        names = [s.name for s in specs.values() if s.group in groups] + list(names or [])
    if names:
        for name in names:
            if name not in specs:
                raise HarnessError(f"--trials: unknown trial {name!r}.{suggest(name, set(specs))}")
        chosen = [specs[n] for n in dict.fromkeys(names)]
    else:
        chosen = [s for s in specs.values() if mode == "full" or s.quick]
    return (
        [s for s in chosen if device_type in s.devices],
        [s for s in chosen if device_type not in s.devices],
    )


def require_writable(results: Path, shown: Path) -> None:
    """Fail now, not after every trial was measured, when ``results`` (or, if it is not
    there yet, the folder it would be made in) cannot take a new file."""
    existing = results
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise HarnessError(
            f"{shown}: cannot write there ({exc.strerror or exc}); the record command writes "
            "its results into this folder, so make it writable (or pass --results) before "
            "measuring anything") from None


def _require_torch() -> None:
    if importlib.util.find_spec("torch") is None:
        raise HarnessError(
            "record runs the trials and the examples with torch, which is not installed "
            f"here; install the recording extra: {INSTALL_HINT} (torch, numpy and filelock), "
            "or pip install torch")


def make_plan(args: argparse.Namespace) -> RecordPlan:
    """Check every argument and environment variable; import nothing that needs torch."""
    root = root_of(args)
    # The site's trials and workloads are content of the --root checkout unless named.
    args.root = root
    args.trials_file = args.trials_file or root / "trials" / "trials.toml"
    args.workloads = getattr(args, "workloads", None) or root / "trials" / "workloads.py"
    examples = args.only != "trials"
    project = None
    if examples:
        project = Project.load(root)
        raise_problems(check_project(project))
    results = records_folder(args, root, must_exist=False)
    specs = (load_trials(args.trials_file, root=root, workloads=args.workloads)
             if args.only != "examples" else {})
    chosen, skipped = select_trials(specs, mode=args.mode, names=args.trials,
                                    device_type=args.device, groups=args.groups)
    plan = RecordPlan(
        root=root, results=results, device_type=args.device, mode=args.mode,
        trials=tuple(chosen), skipped=tuple(skipped), project=project,
        min_run_time=args.min_run_time or MIN_RUN_TIME[args.mode],
        example_timeout=timeout_from_env(),
        guard=QuietGuard() if args.quiet_guard else None,
        bare_loop=args.bare_loop or "",
        control=bool(getattr(args, "control", False)),
        method=_method(args),
        instructions=bool(getattr(args, "instructions", False)),
        workloads=args.workloads,
    )
    if plan.control and args.only != "trials":
        raise HarnessError("--control records a second run of the trials only; add "
                           "--only trials (the examples are observed once, by the main run)")
    if plan.bare_loop and plan.bare_loop not in {s.name for s in chosen}:
        raise HarnessError(f"--bare-loop {plan.bare_loop}: not among the trials this run "
                           "records on this device; name it with --trials too")
    if not plan.empty:
        require_writable(results, relative(results, root))
        _require_torch()
        require_filelock("record")
    return plan
