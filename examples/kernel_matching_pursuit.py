"""Kernel matching pursuit (Vincent and Bengio 2002): basic, back-fitting and pre-fitting on sinc, and
the estimator in a scikit-learn grid search over the number of bases."""
import numpy as np
from sklearn.model_selection import GridSearchCV

import mpcore

rng = np.random.default_rng(0)
X = rng.uniform(-4, 4, size=(200, 1))
y = np.sinc(X[:, 0]) + 0.05 * rng.normal(size=200)
X_test = np.linspace(-4, 4, 400)[:, None]
y_test = np.sinc(X_test[:, 0])

for variant in ("basic", "backfit", "prefit"):
    model = mpcore.KernelMatchingPursuit(n_components=12, variant=variant, gamma=2.0).fit(X, y)
    error = np.mean((model.predict(X_test) - y_test) ** 2)
    print(f"{variant:8s} 12 steps: test MSE {error:.5f}, {model.n_components_} distinct bases")

search = GridSearchCV(mpcore.KernelMatchingPursuit(gamma=2.0), {"n_components": [2, 4, 8, 16, 32]}, cv=5)
search.fit(X, y)
print("5-fold CV picks", search.best_params_["n_components"], "bases; R^2 on the test grid:",
      round(search.score(X_test, y_test), 4))
