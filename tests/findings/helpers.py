"""Build a run's RunData straight from real tool output files, through the real parsers (no database)."""

from __future__ import annotations

from pathlib import Path

from perflab import parsers
from perflab.findings.rules import RunData

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
CAPTURE = FIXTURES / "captures" / "nginx-proxy-buffers"
SCENARIOS = FIXTURES / "findings"
TRIM = 0.1


def steady_mean(values: list[float]) -> float:
    """The pipeline's steady-state mean: drop 10% (at least one sample) at each end."""
    n = len(values)
    if n >= 5:
        cut = max(1, int(n * TRIM))
        values = values[cut : n - cut]
    return sum(values) / len(values)


def run_data(files: dict[str, Path | list[Path]], *, experiment: str = "exp", role: str = "proxy") -> RunData:
    """files: parser kind (or "config") -> path(s)."""
    data = RunData(run_id=f"run-{experiment}", experiment=experiment)
    for kind, paths in files.items():
        for path in paths if isinstance(paths, list) else [paths]:
            text = path.read_text(encoding="utf-8")
            if kind == "config":
                data.configs.append((role, path.name, text, None))
                continue
            parsed = parsers.parse(kind, text)
            if kind == "strace":
                from perflab.imports.analyse import setsockopt_options  # what an import adds to a strace log

                parsed["setsockopt"] = setsockopt_options(text)
            if kind == "pidstat":
                data.summaries.append((role, "pidstat-averages", {"averages": parsed["averages"]}))
                continue
            if kind == "vmstat":
                samples = [s for s in parsed["samples"] if not s.get("since_boot")]
                for metric in ("us", "sy", "st", "id", "wa", "r", "b", "free", "cache", "si", "so", "bi", "bo"):
                    values = [float(s[metric]) for s in samples if s.get(metric) is not None]
                    if values:
                        data.series.append({"role": role, "source": "vmstat", "metric": metric, "key": metric,
                                            "labels": {}, "unit": "%",
                                            "stats": {"mean": steady_mean(values), "max": max(values)}})
                continue
            data.summaries.append(("loadgen" if kind == "wrk" else role, kind, parsed))
            if kind == "sysctl":
                data.sysctl.update(parsed["values"])
    return data


def capture(experiment: str, run: str = "run1") -> RunData:
    d = CAPTURE / experiment
    files: dict[str, Path | list[Path]] = {
        "wrk": d / run / "wrk.txt", "strace-c": d / run / "strace-c.txt", "vmstat": d / run / "vmstat.txt",
    }
    if (d / "nginx.conf").exists():
        files["config"] = d / "nginx.conf"
    return run_data(files, experiment=experiment)


def profile_functions(path: Path, *, role: str = "proxy") -> dict[str, object]:
    """A profile as the findings service loads it: its total and its function table (self, total)."""
    from perflab.parsers.profiles import load_folded
    from perflab.parsers.profiles.model import function_table

    prof = load_folded(path.read_bytes(), unit="samples", name=path.name)
    return {"role": role, "profile_id": path.stem, "name": path.name, "total": prof.total,
            "functions": {r.name: {"self": r.self, "total": r.total} for r in function_table(prof)}}
