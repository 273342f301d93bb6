"""Matching Pursuit Lab -- entry point.

The interactive pages (issues: the app, the labs, the paper figures) are being built on
top of ``mpcore``; until then this page explains the idea and runs one small live
example so ``make run`` shows something true.
"""
import numpy as np
import streamlit as st

import mpcore

st.set_page_config(page_title="Matching Pursuit Lab", layout="wide")
st.title("Matching Pursuit Lab")
st.markdown(
    """
Every algorithm here is one idea: **maximise a criterion over the columns of a kernel
matrix, then deflate the kernel** so the next choice explains something new.
Sparse kernel PCA, kernel matching pursuit, sparse kernel CCA and greedy kernel Fisher
discriminants differ only in the criterion and the deflation.

The step-by-step pages are under construction; the numerical core (`mpcore`) is ready.
Below, sparse kernel PCA chooses basis points on a small noisy circle.
"""
)
k = st.slider("Number of basis points k", 1, 30, 8, help="How many training points sparse KPCA may choose.")
rng = np.random.default_rng(0)
angle = rng.uniform(0, 2 * np.pi, 200)
X = np.c_[np.cos(angle), np.sin(angle)] + 0.1 * rng.normal(size=(200, 2))
path = mpcore.skpca_path(mpcore.kernel_matrix(X, gamma=2.0), k)
residual = path.extras["residuals"]
st.write(
    f"Chosen points (in order): {', '.join(map(str, path.indices))}. "
    f"Mean residual ||phi(x) - P phi(x)||^2 fell from {residual[0].mean():.3f} to {residual[-1].mean():.4f}."
)
st.line_chart({"mean training residual": residual.mean(axis=1)}, x_label="step j", y_label="mean residual")
