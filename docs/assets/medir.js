// «Mide en tu máquina»: the rows a reader pasted from medir.py, checked against the
// page's trials and drawn beside the site's records. Plain JavaScript; nothing is sent
// anywhere. Every pasted value reaches the page through textContent or setAttribute,
// never as markup. The data (trials, spec hashes, words) is the JSON the harness wrote
// into <script id="harness-reader-data"> (harness/views/reader_box.py).
(function () {
  "use strict";
  var STORE = "harness-reader-rows";
  var SVG = "http://www.w3.org/2000/svg";

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (all, key) {
      return key in values ? String(values[key]) : all;
    });
  }

  function cells(line) {
    // One CSV line (RFC 4180 quoting, as Python's csv module writes it).
    var out = [], cell = "", quoted = false;
    for (var i = 0; i < line.length; i++) {
      var c = line[i];
      if (quoted) {
        if (c === '"' && line[i + 1] === '"') { cell += '"'; i++; }
        else if (c === '"') { quoted = false; }
        else { cell += c; }
      } else if (c === '"') { quoted = true; }
      else if (c === ",") { out.push(cell); cell = ""; }
      else { cell += c; }
    }
    out.push(cell);
    return out;
  }

  function check(text, data) {
    // (rows, problems): each row a {column: text} object, each problem a sentence.
    var words = data.words, header = data.header, rows = [], problems = [];
    function say(line, field, why, values) {
      var reason = fill(words["why_" + why], values || {});
      problems.push(field ? fill(words.line_field, { line: line, field: field, why: reason })
                          : fill(words.line, { line: line, why: reason }));
    }
    text.split(/\r?\n/).forEach(function (raw, index) {
      var line = index + 1, body = raw.trim();
      if (!body || body[0] === "#") { return; }
      var got = cells(body);
      if (got[0] === header[0]) {
        for (var k = 0; k < Math.max(got.length, header.length); k++) {
          if (got[k] !== header[k]) {
            say(line, "", "header", { index: k + 1, got: got[k] || "", want: header[k] || "" });
            return;
          }
        }
        return;
      }
      if (got.length < header.length) {
        say(line, header[got.length], "missing", { got: got.length, want: header.length });
        return;
      }
      if (got.length > header.length) {
        say(line, "", "extra", { got: got.length, want: header.length });
        return;
      }
      var row = {};
      header.forEach(function (name, k) { row[name] = got[k]; });
      var before = problems.length;
      var trial = data.trials[row.trial];
      if (!trial) { say(line, "trial", "trial", { got: row.trial }); return; }
      if (row.error) { say(line, "error", "failed", { got: row.error }); return; }
      ["torch_build", "device", "latency", "quality_pass", "quality_error", "throughput",
       "spec_sha256", "run_id"].forEach(function (name) {
        if (!row[name]) { say(line, name, "empty"); }
      });
      if (problems.length > before) { return; }
      if (row.spec_sha256 !== trial.spec_sha256) {
        say(line, "spec_sha256", "hash", { got: row.spec_sha256,
                                           want: trial.spec_sha256.slice(0, 12) + "…" });
      }
      [["dtype", trial.dtype], ["shape", trial.shape], ["batch", String(trial.batch)],
       ["threads", String(trial.threads)], ["throughput_unit", "FLOP/s"]].forEach(function (p) {
        if (row[p[0]] !== p[1]) { say(line, p[0], "fixed", { got: row[p[0]], want: p[1] }); }
      });
      if (Number(row.tolerance) !== trial.tolerance) {
        say(line, "tolerance", "fixed", { got: row.tolerance, want: trial.tolerance });
      }
      var latency = Number(row.latency), throughput = Number(row.throughput);
      var error = Number(row.quality_error);
      if (!(isFinite(latency) && latency > 0)) { say(line, "latency", "positive", { got: row.latency }); }
      if (!(isFinite(throughput) && throughput > 0)) {
        say(line, "throughput", "positive", { got: row.throughput });
      } else if (latency > 0 && Math.abs(throughput * latency / trial.flops - 1) > 1e-4) {
        say(line, "throughput", "units", { got: row.throughput,
                                           want: (trial.flops / latency).toPrecision(6) });
      }
      if (row.memory && !/^\d+$/.test(row.memory)) { say(line, "memory", "integer", { got: row.memory }); }
      if (!(isFinite(error) && error >= 0) || row.quality_error.trim() === "") {
        say(line, "quality_error", "number", { got: row.quality_error });
      } else if (row.quality_pass !== "true" && row.quality_pass !== "false") {
        say(line, "quality_pass", "bool", { got: row.quality_pass });
      } else if ((row.quality_pass === "true") !== (error <= trial.tolerance)) {
        say(line, "quality_pass", "quality", { got: row.quality_pass,
                                               want: String(error <= trial.tolerance) });
      }
      if (problems.length === before) { rows.push(row); }
    });
    return { rows: rows, problems: problems };
  }

  function number(value, lang) {
    return new Intl.NumberFormat(lang, { minimumSignificantDigits: 3, maximumSignificantDigits: 3 }).format(value);
  }

  function exponent(value, lang) {
    // 2,9e-7 as the site's tables write it: the page's decimal mark, one decimal.
    var mark = (1.5).toLocaleString(lang).charAt(1);
    return value.toExponential(1).replace(".0e", "e").replace(".", mark);
  }

  function scaled(value, steps, lang) {
    // steps: [[factor, unit], ...] from the largest; the first whose factor fits.
    for (var i = 0; i < steps.length; i++) {
      if (value >= steps[i][0] || i === steps.length - 1) {
        return number(value / steps[i][0], lang) + " " + steps[i][1];
      }
    }
    return "";
  }

  function texts(row, data) {
    var lang = data.lang, trial = data.trials[row.trial];
    var passes = row.quality_pass === "true";
    return {
      torch: row.torch_build,
      latency_short: scaled(Number(row.latency), [[1, "s"], [1e-3, "ms"], [1e-6, "µs"], [1e-9, "ns"]], lang),
      spread: row.iqr_over_median ? "IQR " + number(100 * Number(row.iqr_over_median), lang) + " %" : "",
      throughput: scaled(Number(row.throughput), [[1e12, "TFLOP/s"], [1e9, "GFLOP/s"], [1e6, "MFLOP/s"], [1, "FLOP/s"]], lang),
      peak_short: "—",
      memory: row.memory ? scaled(Number(row.memory), [[1048576, "MiB"], [1024, "KiB"], [1, "B"]], lang) : "—",
      quality_short: (passes ? "✓ " : "✗ ") + exponent(Number(row.quality_error), lang)
        + (passes ? "" : " > " + exponent(trial.tolerance, lang)),
    };
  }

  function tag(data) {
    var strong = document.createElement("strong");
    strong.className = "harness-reader-tag";
    strong.textContent = data.words.tag;
    return strong;
  }

  function addRow(row, data) {
    var wanted = 'tr[title="' + row.trial + '"]';
    var found = document.querySelector(wanted);
    var box = found && found.closest(".harness-measured");
    if (!box) { return false; }
    var blocks = box.querySelectorAll(".tabbed-block");
    var at = Math.max(0, data.tabs.indexOf(row.device.split("-")[0]));
    var block = blocks.length ? blocks[Math.min(at, blocks.length - 1)] : box;
    if (blocks.length) {
      var inputs = box.querySelectorAll(".tabbed-set > input");
      if (inputs[Math.min(at, blocks.length - 1)]) { inputs[Math.min(at, blocks.length - 1)].checked = true; }
    }
    var group = block.querySelectorAll(wanted);
    if (!group.length) { return false; }
    var head = group[0].querySelector("th[rowspan]");
    var model = group[group.length - 1];
    var tr = document.createElement("tr");
    tr.className = "harness-reader-row" + (row.quality_pass === "true" ? "" : " harness-fail");
    tr.title = row.trial;
    var shown = texts(row, data), first = true;
    model.querySelectorAll("td").forEach(function (cell) {
      var td = cell.cloneNode(false);
      var key = data.columns[cell.getAttribute("data-label")];
      var content = document.createElement("span");  // one piece beside a phone's label
      if (first) { content.appendChild(tag(data)); first = false; }
      content.appendChild(document.createTextNode((key in shown ? shown[key] : "—")
                                                  + (key === "torch" ? " · " + row.device : "")));
      if (key === "latency_short" && shown.spread) {  // as the site's cells: smaller, apart
        var spread = document.createElement("span");
        spread.className = "harness-spread";
        spread.textContent = " " + shown.spread;
        content.appendChild(spread);
      }
      td.appendChild(content);
      tr.appendChild(td);
    });
    if (head) { head.rowSpan = head.rowSpan + 1; }
    model.after(tr);
    return true;
  }

  function addMarks(rows, data) {
    var figure = document.getElementById(data.chart);
    if (!figure || !rows.length) { return; }
    var area = figure.querySelector(".harness-plot-area");
    var axes = area.getAttribute("data-log-axes").split(" ").map(Number);
    var notes = [];
    rows.forEach(function (row) {
      var trial = data.trials[row.trial];
      var x = 100 * (Math.log10(trial.x) - axes[0]) / (axes[1] - axes[0]);
      var y = 100 * (Math.log10(Number(row.throughput)) - axes[2]) / (axes[3] - axes[2]);
      var outside = x < 0 || x > 100 || y < 0 || y > 100;
      var note = row.trial + ": " + texts(row, data).throughput + " (" + data.words.tag
        + (outside ? "; " + data.words.outside : "") + ")";
      var mark = document.createElement("span");
      mark.className = "harness-mark harness-reader-mark";
      mark.style.setProperty("--x", Math.min(100, Math.max(0, x)).toFixed(2) + "%");
      mark.style.setProperty("--y", Math.min(100, Math.max(0, y)).toFixed(2) + "%");
      mark.title = note;
      mark.appendChild(star(row.quality_pass !== "true"));
      area.appendChild(mark);
      notes.push(note);
    });
    var legend = figure.querySelector(".harness-legend");
    var item = document.createElement("li");
    item.className = "harness-reader-legend";
    item.appendChild(star());
    var label = document.createElement("span");
    label.textContent = data.words.tag;
    item.appendChild(label);
    legend.appendChild(item);
    var desc = figure.querySelector('[id$="-desc"]');
    var extra = document.createElement("span");
    extra.className = "harness-reader-desc";
    extra.textContent = " " + notes.join("; ") + ".";
    desc.appendChild(extra);
  }

  function star(hollow) {
    // Filled, or hollow where the row fails its tolerance (as the site's marks).
    var svg = document.createElementNS(SVG, "svg");
    if (hollow) { svg.setAttribute("class", "harness-hollow"); }
    svg.setAttribute("viewBox", "-6 -6 12 12");
    svg.setAttribute("aria-hidden", "true");
    var path = document.createElementNS(SVG, "path");
    path.setAttribute("d", "M0-5.5L1.6-1.7 5.5-1.7 2.4 0.9 3.4 5.1 0 2.6-3.4 5.1-2.4 0.9-5.5-1.7-1.6-1.7Z");
    svg.appendChild(path);
    return svg;
  }

  function removeShown() {
    document.querySelectorAll(".harness-reader-row").forEach(function (tr) {
      var trial = tr.title, previous = tr.previousElementSibling;
      while (previous && !previous.querySelector("th[rowspan]")) { previous = previous.previousElementSibling; }
      var head = previous && previous.title === trial && previous.querySelector("th[rowspan]");
      if (head) { head.rowSpan = head.rowSpan - 1; }
      tr.remove();
    });
    document.querySelectorAll(".harness-reader-mark, .harness-reader-legend, .harness-reader-desc")
      .forEach(function (node) { node.remove(); });
  }

  function report(status, summary, problems) {
    status.replaceChildren();
    var p = document.createElement("p");
    p.textContent = summary;
    status.appendChild(p);
    if (problems.length) {
      var list = document.createElement("ul");
      problems.forEach(function (problem) {
        var item = document.createElement("li");
        item.textContent = problem;
        list.appendChild(item);
      });
      status.appendChild(list);
    }
  }

  function show(text, data, status, save) {
    removeShown();
    var result = check(text, data);
    var drawn = result.rows.filter(function (row) { return addRow(row, data); });
    addMarks(drawn, data);
    var summary = drawn.length ? fill(data.words.shown, { count: drawn.length }) : data.words.empty;
    if (result.problems.length) {
      summary += " " + fill(data.words.rejected, { count: result.problems.length });
    }
    report(status, summary, result.problems);
    if (save && drawn.length) {
      try { localStorage.setItem(STORE, text); } catch (e) { /* storage off: nothing kept */ }
    }
  }

  function start() {
    var source = document.getElementById("harness-reader-data");
    if (!source) { return; }
    var data = JSON.parse(source.textContent);
    var input = document.getElementById("harness-reader-input");
    var status = document.getElementById("harness-reader-status");
    document.getElementById("harness-reader-show").addEventListener("click", function () {
      show(input.value, data, status, true);
    });
    document.getElementById("harness-reader-clear").addEventListener("click", function () {
      removeShown();
      input.value = "";
      try { localStorage.removeItem(STORE); } catch (e) { /* nothing stored */ }
      report(status, data.words.cleared, []);
    });
    var kept = null;
    try { kept = localStorage.getItem(STORE); } catch (e) { kept = null; }
    if (kept) { input.value = kept; show(kept, data, status, false); }
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); }
  else { start(); }
})();
