#!/usr/bin/env python3
"""BENCHMARKS.md's table of current figures, and a new run of the benches compared with it.

    python3 scripts/bench_table.py compare [FILE...]  # every figure more than 20% worse; exit 1 if any
    python3 scripts/bench_table.py table              # the table, and benches/current.json, brought up to date

Each bench writes one JSON document per run (its date, commit, machine, load average at
the start, and every figure it printed), a line each, to target/bench-results/<bench>.json
(benches/common/results.rs). `table` takes the newest figure of each measure from those
files into benches/current.json -- the table's figures kept as data, so `compare` never
reads them back out of Markdown -- and writes the table between the markers at the top of
BENCHMARKS.md; the history below the markers is left as it is. `compare` holds a new run's
figures against benches/current.json: run it before `table`.

A figure is worse when its ratio to the peer measured in the same run is lower, or, for a
figure without a peer, when its own value is: a time more than 20% longer, a rate or a
ratio more than 20% lower. Ratios are compared first because the machine's speed drifts
between runs and falls on both sides of a ratio alike.

Python 3 standard library only.
"""

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- current figures: begin -->"
END = "<!-- current figures: end -->"
# The benches in the order BENCHMARKS.md tells of them; a bench not named here goes last.
BENCH_ORDER = ["import", "queries", "http", "soak", "tiles", "page", "idde"]
# What each run document gives every one of its figures.
RUN_FIELDS = ["bench", "date", "commit", "dirty", "machine", "load_at_start"]


class BenchError(Exception):
    """A results or table file that cannot be read, said with the file it is in."""


def key(f):
    return (f["bench"], f["measure"])


def number(v):
    """The value as a float, or None when there is none (a bench writes NaN as null)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return None if math.isnan(v) else float(v)


# --- reading ------------------------------------------------------------------------


def read_runs(files):
    """Every figure of every run in the results files, each with its run's fields."""
    figures = []
    for path in files:
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError as e:
            raise BenchError(f"{path}: {e.strerror}") from e
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                doc = json.loads(line)
            except json.JSONDecodeError as e:
                # A bench killed while writing leaves its last line cut: said, not fatal.
                print(f"{path}:{n}: not a JSON document ({e.msg}); skipped", file=sys.stderr)
                continue
            for i, fig in enumerate(doc.get("figures", [])):
                if "measure" not in fig:
                    raise BenchError(f"{path}:{n}: figure {i + 1} has no measure")
                f = dict(fig)
                for field in RUN_FIELDS:
                    f[field] = doc.get(field)
                if not f["bench"]:
                    raise BenchError(f"{path}:{n}: the run names no bench")
                figures.append(f)
    return figures


def results_files(results_dir):
    return sorted(Path(results_dir).glob("*.json"))


def read_current(path):
    """The table's figures, from benches/current.json (none when it is missing)."""
    path = Path(path)
    if not path.exists():
        return []
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise BenchError(f"{path}:{e.lineno}: not JSON ({e.msg})") from e
    figures = doc.get("figures")
    if not isinstance(figures, list):
        raise BenchError(f"{path}: no list of figures")
    for i, f in enumerate(figures):
        for field in ("bench", "measure", "date"):
            if field not in f:
                raise BenchError(f"{path}: figure {i + 1} has no {field}")
    return figures


def newest(figures):
    """The newest figure of each measure (a later one of the same date wins)."""
    out = {}
    for f in figures:
        k = key(f)
        if k not in out or (f.get("date") or "") >= (out[k].get("date") or ""):
            out[k] = f
    return out


def merge(current, runs):
    """The table's figures with the runs' newer ones in their place; a measure new to the
    table goes after the last of its bench's."""
    table = list(current)
    at = {key(f): i for i, f in enumerate(table)}
    for k, f in newest(runs).items():
        if k in at:
            if (f.get("date") or "") >= (table[at[k]].get("date") or ""):
                table[at[k]] = f
            continue
        rank = bench_rank(f["bench"])
        pos = len(table)
        for i, g in enumerate(table):
            if bench_rank(g["bench"]) > rank:
                pos = i
                break
        table.insert(pos, f)
        at = {key(g): i for i, g in enumerate(table)}
    return table


def bench_rank(bench):
    return BENCH_ORDER.index(bench) if bench in BENCH_ORDER else len(BENCH_ORDER)


# --- judging ------------------------------------------------------------------------


def ratio(f):
    """ms4 against its peer as a speed: above 1 ms4 is ahead, whichever way is better."""
    ours, theirs = number(f.get("ms4")), number(f.get("peer"))
    if ours is None or theirs is None or ours <= 0 or theirs <= 0:
        return None
    return ours / theirs if f.get("higher_is_better") else theirs / ours


def goal_met(f, goal):
    """Whether the figure meets one goal; None when there is nothing to judge it on."""
    v = number(goal.get("value"))
    kind = goal.get("kind")
    x = ratio(f) if kind == "ratio_at_least" else number(f.get("ms4"))
    if x is None or v is None:
        return None
    if kind in ("ratio_at_least", "at_least"):
        return x >= v
    if kind == "at_most":
        return x <= v
    if kind == "below":
        return x < v
    raise BenchError(f"{f['bench']}, {f['measure']}: unknown goal kind {kind!r}")


def worse_by(old, new, higher_is_better):
    """How much worse `new` is than `old`, as a share (0.25: 25% worse; negative: better)."""
    if higher_is_better:
        return (old - new) / old if old > 0 else 0.0
    if old > 0:
        return (new - old) / old
    return math.inf if new > old else 0.0


def judge(old, new):
    """What is compared (the ratio, else the value), the two values and how much worse."""
    r_old, r_new = ratio(old), ratio(new)
    if r_old is not None and r_new is not None:
        return "ratio", r_old, r_new, worse_by(r_old, r_new, True)
    v_old, v_new = number(old.get("ms4")), number(new.get("ms4"))
    if v_old is None or v_new is None:
        return None
    return "value", v_old, v_new, worse_by(v_old, v_new, bool(new.get("higher_is_better")))


# --- writing ------------------------------------------------------------------------


def fmt_num(v):
    v = number(v)
    if v is None:
        return "—"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    if a == 0:
        return "0"
    return f"{v:.3g}" if a >= 0.001 else f"{v:.2e}"


def fmt_ratio(r):
    if r is None:
        return "—"
    return f"{r:.1f}×" if r < 100 else f"{r:,.0f}×"


def fmt_value(v, unit):
    s = fmt_num(v)
    return s if s == "—" or not unit else f"{s} {unit}"


def fmt_goal(goal, unit):
    v = number(goal.get("value"))
    kind = goal.get("kind")
    n = "—" if v is None else (f"{v:,.0f}" if v >= 1000 and v == int(v) else f"{v:g}")
    if kind == "ratio_at_least":
        return f"≥ {n}×"
    sign = {"at_least": "≥", "at_most": "≤", "below": "<"}.get(kind, kind)
    return f"{sign} {n} {unit}".rstrip()


def fmt_goals(f):
    parts = []
    for g in f.get("goals") or []:
        met = goal_met(f, g)
        word = "no figure" if met is None else ("met" if met else "**not met**")
        parts.append(f"{fmt_goal(g, f.get('unit'))}: {word}")
    return "; ".join(parts) or "—"


def fmt_machine(m, load=None):
    if not isinstance(m, dict):
        return str(m or "—")
    cpu = str(m.get("cpu") or "unknown CPU")
    for noise in ("(R)", "(TM)", "(tm)", " CPU", " Processor"):
        cpu = cpu.replace(noise, "")
    cpu = " ".join(cpu.split("@")[0].split())
    out = cpu
    if m.get("cores"):
        out += f" ×{m['cores']}"
    if number(m.get("ram_gib")) is not None:
        out += f", {m['ram_gib']:g} GiB"
    if isinstance(load, list) and load and number(load[0]) is not None:
        out += f", load {load[0]:.1f}"
    return out


def fmt_date(d):
    d = str(d or "—")
    return d.replace("T", " ")[:16] + (" UTC" if "T" in d else "")


def fmt_commit(f):
    c = str(f.get("commit") or "unknown")
    return f"`{c}+`" if f.get("dirty") else (f"`{c}`" if " " not in c else c)


def cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def render_block(figures):
    lines = [
        BEGIN,
        "## Current figures",
        "",
        "The newest figure of every measure, made by `python3 scripts/bench_table.py table`",
        "from the results files the benches write (`target/bench-results/<bench>.json`) and",
        "kept as data in `benches/current.json`: edit neither by hand. The ratio is a speed,",
        "ms4 against the peer measured in the same run (above 1× ms4 is ahead); a goal is",
        "judged on the figure beside it. A commit ending in `+` had uncommitted changes. The",
        "history below says how each figure is measured. Before resolving an issue that",
        "touches the rules, spatial queries, tiles or the store, run the benches it touches,",
        "then `python3 scripts/bench_table.py compare` (every figure more than 20% worse, for",
        "the issue's closing note), then `table`.",
        "",
        "| bench | measure | data | ms4 | peer | ratio | goal | date | commit | machine |",
        "|---|---|---|---:|---|---:|---|---|---|---|",
    ]
    for f in figures:
        unit = f.get("unit") or ""
        peer = "—"
        if f.get("peer_name") or number(f.get("peer")) is not None:
            peer = f"{f.get('peer_name') or 'peer'} {fmt_value(f.get('peer'), unit)}"
        row = [
            f["bench"],
            f["measure"],
            f.get("data") or "",
            fmt_value(f.get("ms4"), unit),
            peer,
            fmt_ratio(ratio(f)),
            fmt_goals(f),
            fmt_date(f.get("date")),
            fmt_commit(f),
            fmt_machine(f.get("machine"), f.get("load_at_start")),
        ]
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    lines += render_sources(figures)
    lines.append(END)
    return "\n".join(lines) + "\n"


def render_sources(figures):
    """Where each figure copied from the history came from: a bench's every figure, or
    the measures named, per run of a section."""
    sources = {}
    for f in figures:
        if f.get("source"):
            sources.setdefault(f["source"], []).append(f)
    if not sources:
        return []
    per_bench = {}
    for f in figures:
        per_bench[f["bench"]] = per_bench.get(f["bench"], 0) + 1
    lines = [
        "",
        "Figures recorded before the benches wrote results files were copied from the newest",
        "run below that gave each:",
        "",
    ]
    for source, fs in sources.items():
        benches = []
        for b in dict.fromkeys(f["bench"] for f in fs):
            mine = [f for f in fs if f["bench"] == b]
            if len(mine) == per_bench[b]:
                benches.append(f"{b}, every figure")
            else:
                benches.append(f"{b}: " + "; ".join(f["measure"] for f in mine))
        lines.append(f"- {source}: " + "; ".join(benches) + ".")
    return lines


def replace_block(text, block):
    """BENCHMARKS.md with the block between the markers replaced (put before the first
    section when the markers are not there yet); everything else as it was."""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        return head + block.rstrip("\n") + tail
    if BEGIN in text or END in text:
        raise BenchError("BENCHMARKS.md has one of the current-figures markers without the other")
    at = text.find("\n## ")
    if at < 0:
        return text.rstrip("\n") + "\n\n" + block
    return text[: at + 1] + block + "\n" + text[at + 1 :]


def write_current(path, figures):
    doc = {
        "about": "BENCHMARKS.md's current figures as data: written by "
        "`python3 scripts/bench_table.py table`, read by its `compare`.",
        "figures": figures,
    }
    Path(path).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


# --- commands -----------------------------------------------------------------------


def cmd_table(args):
    current = read_current(args.current)
    runs = read_runs(results_files(args.results))
    figures = merge(current, runs)
    write_current(args.current, figures)
    bench_md = Path(args.benchmarks)
    text = bench_md.read_text(encoding="utf-8")
    bench_md.write_text(replace_block(text, render_block(figures)), encoding="utf-8")
    updated = sum(1 for f in figures if f not in current)
    print(f"{len(figures)} figures in the table, {updated} of them from the results files")
    return 0


def cmd_compare(args):
    current = {key(f): f for f in read_current(args.current)}
    files = args.files or results_files(args.results)
    if not files:
        raise BenchError(f"no results files in {args.results} (run a bench first)")
    run = newest(read_runs(files))
    threshold = args.threshold / 100.0
    worse, compared, already, unmatched = [], 0, 0, []
    for k, new in run.items():
        old = current.get(k)
        if old is None:
            unmatched.append(new)
            continue
        if old.get("date") == new.get("date") and old.get("commit") == new.get("commit"):
            already += 1
            continue
        judged = judge(old, new)
        if judged is None:
            continue
        compared += 1
        if judged[3] > threshold:
            worse.append((old, new, judged))
    print(
        f"Figures of the run compared with the table's: {compared} (the ratio to the peer "
        "where both have one, else the figure itself)."
    )
    print(f"Worse by more than {args.threshold:g}%:")
    for old, new, (what, was, now, by) in worse:
        print(describe(old, new, what, was, now, by))
    if not worse:
        print("- none")
    if already:
        print(f"({already} figures of the run are the table's already: `compare` before `table`.)")
    if unmatched:
        print(f"Not in the table yet ({len(unmatched)}):")
        for f in unmatched:
            print(f"- {f['bench']}: {f['measure']}")
    return 1 if worse else 0


def describe(old, new, what, was, now, by):
    unit = new.get("unit") or ""
    if what == "ratio":
        peer = new.get("peer_name") or "the peer"
        change = f"{fmt_ratio(now)} {peer}, was {fmt_ratio(was)}"
    else:
        change = f"{fmt_value(now, unit)}, was {fmt_value(was, unit)}"
    amount = "from none" if math.isinf(by) else f"{by * 100:.0f}% worse"
    line = (
        f"- {new['bench']}: {new['measure']}: {change} "
        f"({fmt_date(old.get('date'))}, {fmt_commit(old)}): {amount}"
    )
    if what == "value" and old.get("machine") != new.get("machine"):
        line += f" (the table's figure is from {fmt_machine(old.get('machine'))})"
    if (old.get("data") or "") != (new.get("data") or ""):
        line += f"\n  data: table {old.get('data')!r}; run {new.get('data')!r}"
    return line


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--results", default=ROOT / "target/bench-results", type=Path,
                   help="the benches' results folder (default: target/bench-results)")
    p.add_argument("--current", default=ROOT / "benches/current.json", type=Path,
                   help="the table's figures as data (default: benches/current.json)")
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("table", help="rewrite the table at the top of BENCHMARKS.md")
    t.add_argument("--benchmarks", default=ROOT / "BENCHMARKS.md", type=Path)
    c = sub.add_parser("compare", help="name every figure of a new run more than 20%% worse")
    c.add_argument("files", nargs="*", type=Path,
                   help="results files of the new run (default: every file in --results)")
    c.add_argument("--threshold", type=float, default=20.0, help="percent (default 20)")
    args = p.parse_args(argv)
    try:
        return cmd_table(args) if args.command == "table" else cmd_compare(args)
    except BenchError as e:
        print(f"bench_table: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
