// A server-sent event stream read with fetch: what the browser's EventSource does (the
// events of a text/event-stream, reconnecting after a drop, the server's "retry"), with
// request headers, which EventSource cannot send (the lecturer's key goes in a header,
// never in the address, which logs keep), and a state its owner shows: "open",
// "reconnecting" (dropped, offline, or silent for too long) or "refused" (the server
// answered with a sentence instead of the stream).

import { createParser } from "./eventsource-parser.js";

const SILENCE_MS = 40000;  // nothing heard for this long (the server says "alive" every 15 s): reconnect
const REFUSED_RETRY_MS = 20000;  // a stream refused (the class full, the server busy): again after this
const LONGEST_WAIT_MS = 15000;

// Open `url`; `onEvent(data)` with each event's JSON (the "alive" event aside), `onState(state,
// sentence, status)` when the state changes.  Returns {close(), state}.
export function openStream(url, { headers = {}, onEvent, onState }) {
  const s = { closed: false, state: "", retryMs: 1000, failures: 0, heard: Date.now(), controller: null, timer: null };
  const set = (state, sentence = "", status = 0) => {
    if (s.state === state && state !== "refused") return;
    s.state = state;
    onState(state, sentence, status);
  };
  const again = (delay) => {
    if (s.closed) return;
    clearTimeout(s.timer);
    s.failures += 1;
    // a whole class dropped at once (a process restarted) comes back spread over a second or two
    const wait = delay ?? Math.min(s.retryMs * 2 ** Math.min(s.failures - 1, 4), LONGEST_WAIT_MS);
    s.timer = setTimeout(connect, wait * (0.75 + 0.5 * Math.random()));
  };
  const connect = async () => {
    if (s.closed) return;
    const controller = (s.controller = new AbortController());
    s.heard = Date.now();
    let response;
    try {
      response = await fetch(url, {
        headers: Object.assign({ Accept: "text/event-stream" }, headers),
        cache: "no-store", credentials: "same-origin", signal: controller.signal,
      });
    } catch (error) {
      if (!s.closed) { set("reconnecting"); again(); }
      return;
    }
    if (!response.ok) {
      let sentence = "";
      try { sentence = (await response.json()).error || ""; } catch (error) { sentence = ""; }
      set("refused", sentence, response.status);
      // no such class, or a key it does not know: final; full or busy: again after a while
      if (response.status !== 404 && response.status !== 403) again(REFUSED_RETRY_MS);
      return;
    }
    s.failures = 0;
    set("open");
    const parser = createParser({
      onEvent: (event) => {
        s.heard = Date.now();
        if (event.event === "alive") return;
        let data;
        try { data = JSON.parse(event.data); } catch (error) { return; }
        onEvent(data);
      },
      onRetry: (ms) => { s.retryMs = Math.max(250, Math.min(ms, LONGEST_WAIT_MS)); },
    });
    try {
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        s.heard = Date.now();
        parser.feed(value);
      }
    } catch (error) { /* dropped, or aborted below */ }
    if (!s.closed) { set("reconnecting"); again(); }
  };
  // A connection a sleeping laptop or a proxy dropped without a word, or a network gone.
  const drop = () => { if (s.controller) s.controller.abort(); };
  const watch = setInterval(() => { if (s.state === "open" && Date.now() - s.heard > SILENCE_MS) drop(); }, 5000);
  const offline = () => { if (s.state === "open") drop(); set("reconnecting"); };
  const online = () => { if (s.state !== "open") { clearTimeout(s.timer); s.failures = 0; connect(); } };
  const wake = () => { if (document.visibilityState === "visible" && s.state === "open" && Date.now() - s.heard > 20000) drop(); };
  window.addEventListener("offline", offline);
  window.addEventListener("online", online);
  document.addEventListener("visibilitychange", wake);
  connect();
  return {
    get state() { return s.state; },
    close() {
      s.closed = true;
      clearTimeout(s.timer);
      clearInterval(watch);
      window.removeEventListener("offline", offline);
      window.removeEventListener("online", online);
      document.removeEventListener("visibilitychange", wake);
      drop();
    },
  };
}
