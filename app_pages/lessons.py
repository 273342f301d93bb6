"""Guided lessons: the shipped lessons, a lesson file of one's own, and how to write one."""

import streamlit as st

from ui import guide
from ui.state import plain
from views import lessons, site

st.title("Guided lessons")
st.markdown(
    "A lesson walks through the ideas one scene at a time: each scene opens a page on its own settings, says in two "
    "to four sentences what to look at (its numbers computed from the study on screen), and may ask a question. "
    "**PageDown / PageUp** (or a presentation clicker) move through a scene's steps and on to the next scene; "
    "presenter mode shows the narration at a readable size. A lesson's address reopens its scene, so it can be "
    "shared with a class."
)


def scene_link(key, lesson, number=1):
    """Links to scene ``number`` of a lesson (its page, settings and step, with the lesson):
    for a student, and for a lecturer in presenter mode."""
    scene = lesson.scene(number)
    query = {**scene.query(), "lesson": key, "scene": str(number)}
    if scene.step:
        query["step"] = str(scene.step)
    row = st.container(horizontal=True)
    with row:
        st.page_link(
            site.by_key(scene.page).file, label="Start the lesson", icon=":material/play_circle:", query_params=query
        )
        st.page_link(
            site.by_key(scene.page).file,
            label="Present it (presenter mode)",
            icon=":material/slideshow:",
            query_params={**query, "present": "1"},
        )


def outline(lesson):
    return "\n".join(
        f"{n}. {plain(scene.title)} ({plain(lessons.page_title(scene))})" for n, scene in enumerate(lesson.scenes, 1)
    )


for key, lesson in lessons.shipped().items():
    with st.container(border=True):
        st.subheader(lesson.title)
        st.markdown(plain(lesson.summary))
        scene_link(key, lesson)
        with st.expander(f"The {len(lesson.scenes)} scenes"):
            st.markdown(outline(lesson))
        st.download_button(
            "Lesson file (.toml): a template for your own",
            lesson.source,  # a string already in memory (a callable here would see the loop's last lesson)
            file_name=f"{key}.toml",
            mime="text/plain",
            key=f"source:{key}",
            icon=":material/download:",
            help="The lesson's TOML file: open it in a text editor, change the scenes, and open it "
            "below (or send its link).",
        )

st.header("Your own lesson")
st.markdown(
    "A lesson is a short TOML file: a `title`, a `summary` and one `[[scene]]` table per scene with `title`, `page` "
    f"(one of {', '.join('`' + p + '`' for p in lessons.PAGES)}), `settings` (the page's address keys), `step`, "
    "optionally `until` (the last step it plays to), `narration` (numbers in braces are filled from the study: "
    "`{bound_min:.2f}`), `notes`, `claims` (checked on the scene's study), `try` (a prompt that unlocks the page's "
    "controls) and a `[scene.question]` with `ask`, `choices` and `answer`. Any shipped lesson above is a template. "
    f"At most {lessons.MAX_BYTES // 1000} kB and {lessons.MAX_SCENES} scenes."
)
upload = st.file_uploader(
    "Open a lesson file",
    type=["toml"],
    max_upload_size=1,
    help="The lesson travels in the address it opens, so its link works for anyone with the app.",
)
if upload is not None:
    try:
        text = upload.getvalue()
        mine = lessons.parse(text)
    except lessons.LessonError as error:
        st.error(plain(f"{upload.name}: {error}"), icon=":material/error:")
    else:
        key = lessons.encode(mine.source)
        with st.container(border=True):
            st.subheader(plain(mine.title))
            st.markdown(plain(mine.summary))
            st.markdown(outline(mine))
            scene_link(key, mine)

state_guide = st.session_state.get(guide.SESSION)
if state_guide:
    st.sidebar.markdown(f"**Lesson open:** {plain(state_guide['lesson'].title)}, scene {state_guide['scene']}")
