"""What the app shows, as pure functions of its settings: no Streamlit here.

The registry of pages (:mod:`views.site`), each page's picture (:mod:`views.pictures`:
read an address, compute its study, draw it), the player's payload (:mod:`views.player`),
the controls, the lessons, the presets, Copy as code, the saved page (:mod:`views.export`)
and a live class's record (:mod:`views.classroom`).  The app (``ui/``, Streamlit), the
serving layer (``serving/``), the export command and the tests all call these; nothing
here imports from them.
"""
