"""
Rerun a paper's figure and read its verdict
===========================================

Wang 2016, Fig. 1 (ridge-leverage against uniform columns), at the small "tiny" size with
more points and ranks than it has by default (any setting can be overridden by keyword).
Each item says which sentences of its paper it judges and by what criterion; the verdict is
one of reproduced, partly, not reproduced or not judged (a run too small to tell), with the
reason.  Use size="quick" or "full" for the gallery's and the paper's sizes, and
``python -m mpcore.experiments report --out DIR`` for every item at once.
"""

import matplotlib.pyplot as plt

from mpcore import experiments

info = experiments.FIGURES["wang2016-fig1"]
result = experiments.run("wang2016-fig1", "tiny", N=400, ranks=(15, 40, 100, 150), seeds=2)
print("The paper says:", info.quoted)
print("Judged by:", info.criterion)
for key, value in list(result.findings.items())[:6]:
    print(" ", key, ":", value)
print("verdict:", result.verdict.status, "-", result.verdict.reason)
print("CSV columns:", ", ".join(result.table))

# %%
# The run's table holds every curve of the figure; here, panel (b)'s error in the first
# canonical correlation against the rank.
fig, ax = plt.subplots(figsize=(6, 3.5))
for sampling in ("uniform", "ridge-leverage", "greedy"):
    ax.plot(result.table["rank"], result.table[f"{sampling} rho"], "o-", label=sampling)
ax.set(xlabel="rank (columns per view)", ylabel="|rho - rho~|", yscale="log", title=result.title)
ax.legend()
fig.tight_layout()
plt.show()
