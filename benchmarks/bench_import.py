"""How long `import cvreport` takes beyond the libraries it is built on.

In one fresh interpreter per run, first ``import pandas, scipy.stats,
statsmodels.stats.multitest`` (the floor every user pays anyway), then
``import cvreport``; the second time is cvreport's own cost. Target: within
0.5 s, with the notebook, widgets and simulator not loaded.

Run: ``python benchmarks/bench_import.py [runs]``.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

PROBE = """
import json, sys, time
start = time.perf_counter()
import pandas, scipy.stats, statsmodels.stats.multitest
middle = time.perf_counter()
import cvreport
end = time.perf_counter()
lazy = ["cvreport.jupyter.widgets", "cvreport.jupyter.notebook", "cvreport.simulate",
        "ipywidgets", "nbformat"]
print(json.dumps({"libraries": middle - start, "cvreport": end - middle,
                  "loaded": [name for name in lazy if name in sys.modules]}))
"""

TARGET = 0.5


def measure(runs: int = 5) -> dict[str, float | list[str]]:
    """Median seconds of both imports over ``runs`` fresh interpreters."""
    samples = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return {
        "libraries": statistics.median(s["libraries"] for s in samples),
        "cvreport": statistics.median(s["cvreport"] for s in samples),
        "loaded": sorted({name for s in samples for name in s["loaded"]}),
    }


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    result = measure(runs)
    print(f"import pandas, scipy.stats, statsmodels.stats.multitest: {result['libraries']:.3f} s")
    print(f"then import cvreport:                                   {result['cvreport']:.3f} s")
    verdict = "within" if result["cvreport"] <= TARGET else "OVER"
    print(f"cvreport's own cost is {verdict} the {TARGET} s target (median of {runs} runs)")
    print(f"lazy modules loaded by `import cvreport`: {result['loaded'] or 'none'}")


if __name__ == "__main__":
    main()
