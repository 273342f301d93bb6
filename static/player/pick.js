// A select's option picked in the sidebar: the picture at the new value asked for at once,
// beside the page's own rerun (which the select starts anyway, and which keeps the widgets,
// the address and the lesson line in step).  Whichever comes first is drawn; the rerun's
// reference to the same study then keeps what is on screen (mount.js), and a picture the
// rerun brought first is never replaced by the asked one.  Which selects, their address
// names and the value each shown option stands for, the page says (the reference's
// `settings`).  Only this file knows how Streamlit draws a select.

import { changedQuery } from "./drag.js";

const SELECT = '[data-testid="stSidebar"] [data-testid="stSelectbox"]';

// Follow the page's selects (the arguments are drag.js `followDrags`'s).  Returns `stop()`.
export function followPicks(current, delivered, fetchView, show) {
  let open = null;  // {setting, shown}: the select whose options are out, and the text it showed
  const pressed = (event) => {
    const box = event.target && event.target.closest ? event.target.closest(SELECT) : null;
    if (!box) return;
    const input = box.querySelector('input[role="combobox"]');
    const label = input && input.getAttribute("aria-label");
    const setting = (current().head.settings || []).find((item) => item.widget === "selectbox" && item.label === label);
    open = setting ? { setting, shown: input.value } : null;
  };
  // (in the capture phase, before the select takes the option: the value is read off the option)
  const clicked = (event) => {
    const option = event.target && event.target.closest ? event.target.closest('[role="option"]') : null;
    if (!option || !open) return;
    const { setting, shown } = open;
    open = null;
    const text = option.textContent.trim();
    const value = (setting.values || {})[text];
    if (value === undefined || text === shown) return;
    const since = delivered();
    fetchView(changedQuery(window.location.search, setting.name, value)).then((view) => {
      if (view && delivered() === since) show(Object.assign({}, current().head, { address: view.address, lesson: null }), view.name);
    }, () => {});  // the rerun brings the picture anyway
  };
  document.addEventListener("pointerdown", pressed, true);
  document.addEventListener("click", clicked, true);
  return () => {
    document.removeEventListener("pointerdown", pressed, true);
    document.removeEventListener("click", clicked, true);
  };
}
