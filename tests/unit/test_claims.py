"""Claims about the records: declared with a predicate, evaluated against the records,
shown as the sentence or failing the build with the page line (harness/sources/claims.py,
harness/records/claims.py, harness/views/claims.py). The strict build's side, a record
flipped under a real page's claim, is tests/faults/test_faults_build.py's «claim-flipped»."""

from __future__ import annotations

import dataclasses
import random
import statistics
from pathlib import Path

import pytest
from support import ROOT

from harness.core.errors import HarnessError, Location
from harness.records.claims import _PREDICATES, Undecided, evaluate
from harness.records.store import Records, load_all
from harness.sources.claims import ARGUMENTS, PREDICATES, load_claims
from harness.sources.trials import load_trials
from harness.text.markdown import recorded
from harness.views.claims import render_claim

WHERE = Location(path=Path("docs/pagina.md"), line=12)


def _claims(tmp_path: Path, body: str) -> dict:
    folder = tmp_path / "snippets" / "pagina"
    folder.mkdir(parents=True)
    (folder / "claims.toml").write_text(body, encoding="utf-8")
    return load_claims(tmp_path / "snippets", root=tmp_path)


CLAIM = '''
[[claim]]
id = "solo-cpu"
predicate = "example-devices"
expect = ["cpu"]
es = "todo se registró en una CPU"
en = "everything was recorded on a CPU"
'''


def test_every_declared_predicate_is_evaluated_and_documented() -> None:
    assert set(_PREDICATES) == set(PREDICATES)
    assert {a for args in PREDICATES.values() for a in args} == set(ARGUMENTS)


@pytest.mark.parametrize(("body", "message"), [
    (CLAIM.replace("example-devices", "example-device"),
     "snippets/pagina/claims.toml:2: predicate 'example-device' is not one the harness "
     "evaluates. Did you mean 'example-devices'?"),
    (CLAIM.replace('en = "everything was recorded on a CPU"\n', ""),
     "snippets/pagina/claims.toml:2: the claim needs its sentence in 'en'"),
    (CLAIM.replace('expect = ["cpu"]\n', ""),
     "its 'es' sentence must hold {value}"),
    (CLAIM.replace('expect = ["cpu"]', 'expect = "cpu"'), "expect must be a list of strings"),
    (CLAIM.replace('predicate = "example-devices"', 'predicate = "faster-passing"'),
     'predicate \'faster-passing\' needs device = "..."'),
    (CLAIM + "devise = 'cpu'\n", "unknown key 'devise' for predicate 'example-devices'"),
    (CLAIM + CLAIM, "snippets/pagina/claims.toml:9: a second claim with id 'solo-cpu'"),
    (CLAIM.replace('id = "solo-cpu"', 'id = "Solo CPU"'), "id must be ASCII kebab-case"),
])
def test_a_malformed_claim_names_its_file_and_line(tmp_path: Path, body: str,
                                                   message: str) -> None:
    with pytest.raises(HarnessError, match=None) as caught:
        _claims(tmp_path, body)
    assert message in str(caught.value)


def test_a_claim_holds_or_fails_naming_the_page_line(tmp_path: Path) -> None:
    claim = _claims(tmp_path, CLAIM)[("pagina", "solo-cpu")]
    records = load_all(ROOT / "results")
    records = Records(items=[r for r in records.items if r.device_type == "cpu"])
    assert render_claim(claim, records, {}, "es", WHERE) == "todo se registró en una CPU"
    gpu = [r for r in load_all(ROOT / "results").items if r.device_type == "cuda"]
    assert gpu, "the committed records hold no GPU set to flip the claim with"
    flipped = Records(items=[*records.items, *(
        type(g)(torch_build=g.torch_build, device_key=g.device_key,
                environments=g.environments, rows=g.rows,
                observations=records.items[0].observations) for g in gpu)])
    with pytest.raises(HarnessError) as caught:
        render_claim(claim, flipped, {}, "es", WHERE)
    assert str(caught.value).startswith(
        "docs/pagina.md:12: claim 'solo-cpu' (snippets/pagina/claims.toml:2) no longer holds: "
        "its sentence asserts example-devices = [cpu], the records show [cpu, cuda].")


def test_without_records_a_claim_says_so_in_place_of_what_it_asserts(tmp_path: Path) -> None:
    claim = _claims(tmp_path, CLAIM)[("pagina", "solo-cpu")]
    # Its sentence asserts what no record shows: it is not shown.
    assert render_claim(claim, Records(items=[]), {}, "es", WHERE) == (
        f"*{recorded('Sin medición')}.*")
    assert render_claim(claim, Records(items=[]), {}, "en", WHERE) == (
        f"*{recorded('No measurement')}.*")
    # A sentence that only frames its values keeps its frame.
    listing = _claims(tmp_path / "listing", CLAIM.replace('expect = ["cpu"]\n', "").replace(
        "todo se registró en una CPU", "dispositivos: {value}").replace(
        "everything was recorded on a CPU", "devices: {value}"))[("pagina", "solo-cpu")]
    assert (render_claim(listing, Records(items=[]), {}, "es", WHERE)
            == f"dispositivos: *{recorded('sin medición')}*")


def test_generated_sentences_fill_values_from_the_records(tmp_path: Path) -> None:
    claims = _claims(tmp_path, '''
[[claim]]
id = "tolerancia"
predicate = "trial-setting"
trial = "matmul_256_float32"
field = "tolerance"
es = "un error relativo de {value}"
en = "a relative error of {value}"

[[claim]]
id = "rapidos"
predicate = "faster-failing"
device = "cpu"
than = "float32"
es = "más rápidos pero fuera de tolerancia: {value}"
en = "faster but out of tolerance: {value}"
''')
    specs = load_trials()
    records = load_all(ROOT / "results")
    tolerance = claims[("pagina", "tolerancia")]
    # The value is marked as recorded, for the build's typed-figure check.
    assert (render_claim(tolerance, records, specs, "es", WHERE)
            == f"un error relativo de {recorded('10⁻³')}")
    # The committed records (five runs a build, a control in one CPU set only) cannot
    # tell «faster» from noise over every pair compared: the sentence keeps its frame and
    # reads «sin veredicto» (rows exist, too few to decide), never «sin medición».
    rapidos = claims[("pagina", "rapidos")]
    with pytest.raises(Undecided, match="has no control rows|runs"):
        evaluate(rapidos, records, specs)
    assert (render_claim(rapidos, records, specs, "es", WHERE)
            == f"más rápidos pero fuera de tolerancia: *{recorded('sin veredicto')}*")
    # With a control whose windows agree but one run a row: too few runs.
    with pytest.raises(Undecided, match=r"rows with fewer than \d+ runs"):
        evaluate(rapidos, with_runs(records, runs=1), specs)
    # bfloat16 made a thousand times faster: whether it is faster on the committed
    # machine (not on an AMD EPYC without bfloat16 instructions) is the records' business.
    faster_records = with_runs(records, scale={"bfloat16": 1e-3})
    faster = evaluate(rapidos, faster_records, specs)
    assert faster is not None and faster
    # Every dtype named is really faster than float32 on the same work and fails quality,
    # at the sizes the value names.
    for value in faster:
        dtype, sizes = value.split(" (")
        assert sizes.rstrip(")")
        assert any(specs[r.trial].dtype == dtype and not r.quality_pass
                   for record in records.items if record.device_type == "cpu"
                   for r in record.rows)
    shown = render_claim(rapidos, faster_records, specs, "en", WHERE)
    assert shown.startswith("faster but out of tolerance: ")
    assert "<code>bfloat16</code> (" in shown


def test_a_claim_on_an_unknown_trial_names_the_claims_line(tmp_path: Path) -> None:
    claims = _claims(tmp_path, '''
[[claim]]
id = "tolerancia"
predicate = "trial-setting"
trial = "matmul_257_float32"
field = "tolerance"
es = "{value}"
en = "{value}"
''')
    with pytest.raises(HarnessError, match=r"snippets/pagina/claims.toml:2: trial = "
                                           r"'matmul_257_float32' names no trial the harness "
                                           r"knows. Did you mean 'matmul_256_float32'\?"):
        evaluate(claims[("pagina", "tolerancia")], Records(items=[]), load_trials())


def test_record_values_in_a_sentence_are_escaped(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    claim = _claims(tmp_path, CLAIM.replace('expect = ["cpu"]\n', "")
                    .replace("todo se registró en una CPU", "dispositivos: {value}")
                    .replace("everything was recorded on a CPU", "devices: {value}"))
    hostile = ("<img src=x onerror=alert(1)>", "[x](javascript:y)")
    monkeypatch.setitem(_PREDICATES, "example-devices", lambda *args: hostile)
    shown = render_claim(claim[("pagina", "solo-cpu")], Records(items=[]), {}, "es", WHERE)
    assert "<img" not in shown
    assert "](" not in shown and "[x]" not in shown  # no Markdown link can form


def with_runs(records: Records, runs: int = 8, scale: dict[str, float] | None = None,
              seed: int = 3) -> Records:
    """A copy of ``records`` whose every row holds ``runs`` runs (its blocks again, each run
    shifted by up to ± 0.5 %), its run's environment saying so, and a same-build control
    equal to it (windows that do not drift); ``scale`` multiplies the times of the rows of
    the dtypes (or trials) it names."""
    rng = random.Random(seed)
    items = []
    for record in records.items:
        rows = []
        for row in record.rows:
            factor = (scale or {}).get(row.dtype, (scale or {}).get(row.trial, 1.0))
            times = tuple(t * factor * (1 + rng.uniform(-5e-3, 5e-3))
                          for _ in range(runs) for t in row.samples_s)
            rows.append(dataclasses.replace(
                row, samples_s=times, latency=row.latency * factor if row.latency else None))
        environments = {k: dataclasses.replace(e, extra={**e.extra, "runs": runs})
                        for k, e in record.environments.items()}
        items.append(dataclasses.replace(record, rows=rows, control_rows=list(rows),
                                         environments=environments))
    return Records(items=items)


def _flipped(claim, records: Records, specs: dict) -> tuple[object, object]:
    """The claim's reading on ``records`` and on a copy mutated against it."""
    before = evaluate(claim, records, specs)
    args = claim.args
    if claim.predicate == "trial-setting":
        spec = specs[args["trial"]]
        value = getattr(spec, args["field"])
        changed = (value * 2 if isinstance(value, (int, float)) else
                   tuple(v + 1 for v in value))
        mutated = {**specs, spec.name: dataclasses.replace(spec, **{args["field"]: changed})}
        return before, evaluate(claim, records, mutated)
    if claim.predicate == "example-devices":
        gpu = [dataclasses.replace(r, device_key="cuda-x") for r in records.items
               if r.observations]
        return before, evaluate(claim, Records(items=[*records.items, *gpu]), specs)
    if claim.predicate.startswith("faster"):
        factor = 10.0 if before else 1e-3  # named dtypes turned slow, or all turned fast
        others = {s.dtype: factor for s in specs.values() if s.dtype != args["than"]}
        return before, evaluate(claim, with_runs(records, scale=others), specs)
    if claim.predicate == "latency-flat":
        batch = max((s for s in specs.values() if s.group == args["group"]
                     and s.task == args["task"]), key=lambda s: s.batch)
        if before == ("flat",):  # the largest batch made ten times slower
            return before, evaluate(claim, with_runs(records, scale={batch.name: 10.0}),
                                    specs)
        # «grows»: every batch of the group scaled to one latency, so it reads flat
        latencies: dict[str, list[float]] = {}
        for record in records.items:
            for row in record.rows:
                if (record.device_type == args["device"] and row.latency
                        and specs[row.trial].group == args["group"]):
                    latencies.setdefault(row.trial, []).append(row.latency)
        flat = {t: 1.0 / statistics.median(v) for t, v in latencies.items()}
        return before, evaluate(claim, with_runs(records, scale=flat), specs)
    raise AssertionError(f"no mutation for predicate {claim.predicate!r}")


def test_every_claim_of_the_site_can_flip_on_mutated_records() -> None:
    """Each declared claim, against its records and a copy mutated against what it
    reads, reads something else: no claim's rule is one that cannot fail."""
    specs = load_trials()
    records = with_runs(load_all(ROOT / "results"))
    claims = load_claims(ROOT / "snippets", root=ROOT)
    assert claims
    for claim in claims.values():
        if claim.predicate == "latency-flat" and not any(
                r.device_type == claim.args["device"]
                and any(specs[row.trial].group == claim.args["group"] for row in r.rows)
                for r in records.items):
            continue  # nothing of its group on that device yet: it reads «sin medición»
        before, after = _flipped(claim, records, specs)
        assert before is not None, claim.id
        assert before != after, f"{claim.id} reads {before} whatever the records say"


def test_a_configuration_claim_cannot_say_it_was_measured(tmp_path: Path) -> None:
    body = """
[[claim]]
id = "gpu-float32"
predicate = "trial-setting"
trial = "matmul_256_float32"
field = "dtype"
es = "las mediciones muestran que en la GPU {value} es el tipo más rápido"
en = "the measurements show {value} is the fastest type on the GPU"
"""
    with pytest.raises(HarnessError, match="reads the trials' configuration, not a record"):
        _claims(tmp_path, body)


def test_a_claim_naming_an_unknown_dtype_or_device_says_did_you_mean(tmp_path: Path) -> None:
    body = CLAIM.replace('predicate = "example-devices"',
                         'predicate = "faster-passing"\ndevice = "cpu"\nthan = "fp32"')
    claim = _claims(tmp_path, body)[("pagina", "solo-cpu")]
    with pytest.raises(HarnessError, match="than = 'fp32' names no than the harness knows"):
        evaluate(claim, Records(items=[]), load_trials())
    gpu = dataclasses.replace(claim, args={"device": "gpu", "than": "float32"})
    with pytest.raises(HarnessError, match="device = 'gpu' names no device.*Valid: cpu, cuda"):
        evaluate(gpu, Records(items=[]), load_trials())


def test_a_dtype_that_is_its_own_reference_is_never_passing() -> None:
    specs = load_trials()
    records = with_runs(load_all(ROOT / "results"), scale={"float64": 0.01})
    claim = next(c for c in load_claims(ROOT / "snippets", root=ROOT).values()
                 if c.predicate == "faster-passing" and c.args["device"] == "cpu")
    values = evaluate(claim, records, specs)
    assert values is not None and not any(v.startswith("float64") for v in values)


def test_a_flat_claim_says_in_words_the_ratio_its_rule_allows() -> None:
    """«flat» lets the slowest row take up to FLAT_RATIO times the fastest: each sentence
    that asserts it says so in words, so neither can change without the other."""
    from harness.records.claims import FLAT_RATIO

    assert FLAT_RATIO == 1.5, "the sentences below say «la mitad más»: rewrite them with it"
    flat = [c for c in load_claims(ROOT / "snippets", root=ROOT).values()
            if c.predicate == "latency-flat" and c.expect == ("flat",)]
    assert flat
    for claim in flat:
        assert "la mitad más" in claim.sentences["es"], claim.id
        assert "half as long again" in claim.sentences["en"], claim.id


def test_a_flat_claim_never_compares_rows_of_two_processors() -> None:
    """The committed CPU autograd rows, with one row moved to another processor and made
    ten times slower: the group still reads «flat» on each processor, and «grows» once
    the slow row is on the same one."""
    specs = load_trials()
    cpu = next(r for r in load_all(ROOT / "results").items
               if r.device_type == "cpu" and any(specs[x.trial].group == "autograd"
                                                  for x in r.rows))
    row = next(x for x in cpu.rows if specs[x.trial].group == "autograd")
    slow = dataclasses.replace(row, latency=row.latency * 10, run_id="elsewhere")
    other = dataclasses.replace(cpu.environments[row.run_id], run_id="elsewhere",
                                device_name="Otro procesador", cpu_id="x")
    rows = [slow if x is row else x for x in cpu.rows]
    moved = dataclasses.replace(cpu, rows=rows,
                                environments={**cpu.environments, "elsewhere": other})
    args = {"group": "autograd", "device": "cpu", "task": "gradients"}
    assert _PREDICATES["latency-flat"](Records(items=[moved]), specs, args) == ("flat",)
    same = dataclasses.replace(moved, environments={**cpu.environments,
                                                    "elsewhere": cpu.environments[row.run_id]})
    assert _PREDICATES["latency-flat"](Records(items=[same]), specs, args) == ("grows",)
