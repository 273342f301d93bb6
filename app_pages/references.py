"""References: every work the app, its lessons and the library cite, in full."""

import streamlit as st

from mpcore.references import REFERENCES

st.title("References")
st.markdown(
    "The app, its lessons and the `mpcore` library cite by author and year; here is each work in full, "
    "with what this project takes from it. The first five are the papers it implements."
)
for number, reference in enumerate(REFERENCES):
    if number == 5:
        st.subheader("Works they build on, and the sources of the data")
    elif number == 0:
        st.subheader("The papers the app implements")
    entry = reference.entry()
    if reference.doi:  # the DOI as a link (the address in <>: some DOIs hold parentheses)
        entry = entry.replace(f"doi:{reference.doi}", f"[doi:{reference.doi}](<{reference.url}>)")
    st.markdown(f"**{reference.cite()}.** {entry}  \n*Used for:* {reference.used_for}.")
