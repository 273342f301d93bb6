// A slider dragged in the sidebar: the picture at each value it passes, before the release.
// Streamlit's slider sends its value when it is released (the page then reruns); while it is
// dragged, this module reads the value the slider shows, asks the app's view route for the
// picture at the address with that value (serving/routes.py `view`: read, computed and drawn
// as a link is, in this browser's fair share) and has it drawn into the plots on screen.
// One question at a time: values passed while one is asked give way to the latest, so no
// stale work is asked for.  Which sliders, and the address name each writes, the page says
// (the reference's `settings`).  Only this file knows how Streamlit draws a slider.

const SLIDER = '[data-testid="stSidebar"] [data-testid="stSlider"]';
const AGAIN_MS = 250;  // a value the view route said to ask again for (its "wait"): asked after this
// The page while its script reruns (Streamlit's own mark on its app element).
export const RUNNING = '[data-testid="stApp"][data-test-script-state="running"]';

// The query a changed setting asks for: the page's address with `name` set to `value`, without
// the step (the player keeps its own step: mount.js) or a live class's own parameters.
export function changedQuery(search, name, value) {
  const query = new URLSearchParams(search);
  query.set(name, value);
  for (const own of ["step", "class", "key"]) query.delete(own);
  return query.toString();
}

// Follow the page's sliders while they are dragged.  `current()`: the page's last reference
// ({head, name}: its view fields and payload name); `delivered()`: how many the page's runs
// have delivered (a picture the page's own rerun brought stands over a dragged one);
// `fetchView(query)`: a promise of the view route's {name, address}, or null when it says no
// (rejected with `again` set when it says to ask again once this browser's views in flight are
// drawn: the value still held is asked for again then);
// `show(head, name)`: draw that payload; `onRelease()`: the slider let go (the panels out of
// view are drawn then).  Returns {dragging(), stop()}.
export function followDrags(current, delivered, fetchView, show, onRelease) {
  let drag = null;  // {input, setting, asked, busy}: the slider held down, if any

  const ask = () => {
    if (!drag || drag.busy) return;
    // while the page reruns (another setting just changed), its address is not yet the one the
    // rerun will write: asked at a later frame
    if (document.querySelector(RUNNING)) return;
    const value = drag.input.value;
    if (value === drag.asked) return;
    const held = drag;
    const since = delivered();
    held.asked = value;
    held.busy = true;
    fetchView(changedQuery(window.location.search, held.setting.name, value)).then((view) => {
      if (!view) return;
      // a picture a rerun brought meanwhile (the release's) is newer than any dragged one; a
      // rerun's while the slider is still held is not its value's: the value is asked again
      if (delivered() !== since) {
        if (drag === held && held.asked === value) held.asked = null;
        return;
      }
      const head = Object.assign({}, current().head, { address: view.address, values: view.values, lesson: null, dragged: true });
      show(head, view.name);
    }, (error) => {
      if (error && error.again && held.asked === value) held.asked = null;  // (asked again AGAIN_MS later)
    }).then(() => {
      // (the next frame asks for the value the thumb may have moved on to meanwhile)
      if (held.asked !== null) held.busy = false;
      else setTimeout(() => { held.busy = false; }, AGAIN_MS);
    });
  };
  // The slider's value is read every frame while it is held, not on its pointer's moves: React
  // commits what a move did in a task of its own, which may come after the frame that follows
  // the move, and no event marks it (a value read at the move was the one before, and the value
  // the thumb then rested on was never asked for until the release)
  const watch = (held) => {
    if (drag !== held) return;
    ask();
    requestAnimationFrame(() => watch(held));
  };
  const released = () => {
    drag = null;
    document.removeEventListener("pointerup", letGo, true);
    document.removeEventListener("pointercancel", letGo, true);
  };
  const letGo = () => { released(); onRelease(); };
  const pressed = (event) => {
    const slider = event.target && event.target.closest ? event.target.closest(SLIDER) : null;
    const input = slider && slider.querySelector('input[type="range"]');
    if (!input) return;
    const label = input.getAttribute("aria-label");
    const setting = (current().head.settings || []).find((item) => item.widget === "slider" && item.label === label);
    if (!setting) return;
    released();
    drag = { input, setting, asked: input.value, busy: false };
    watch(drag);
    document.addEventListener("pointerup", letGo, true);
    document.addEventListener("pointercancel", letGo, true);
  };
  document.addEventListener("pointerdown", pressed, true);
  return {
    dragging: () => drag !== null,
    stop() {
      released();
      document.removeEventListener("pointerdown", pressed, true);
    },
  };
}
