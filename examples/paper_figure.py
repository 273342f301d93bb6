"""Rerun one of the papers' items and read its verdict: Wang 2016, Fig. 1 (ridge-leverage
against uniform columns), at the small "tiny" size with more points and ranks than it
has by default (any setting can be overridden by keyword) so the ranks reach several
d_eff.  Use size="quick" or "full" for the gallery's and the paper's sizes, and
``python -m mpcore.experiments report --out DIR`` for every item at once."""
from mpcore import experiments

result = experiments.run("004-fig1", "tiny", N=400, ranks=(15, 40, 100, 150), seeds=2)
print(experiments.FIGURES["004-fig1"].finding)
for key, value in list(result.findings.items())[:6]:
    print(" ", key, ":", value)
print("verdict:", result.verdict.status if result.verdict else "not judged", "-",
      result.verdict.reason if result.verdict else "")
print("CSV columns:", ", ".join(result.table))
