// The app's payloads decoded off the page's main thread (streamlit.js starts this worker): a
// study's text in, the payload as the player reads it out (decode.js `decodePayload`), the
// buffers of its arrays handed over, not copied.  A saved page decodes as it mounts.
import { buffersOf, decodePayload } from "./decode.js";

self.onmessage = (event) => {
  const { id, text } = event.data;
  let payload;
  try {
    payload = decodePayload(JSON.parse(text), "worker");
  } catch (error) {
    self.postMessage({ id, error: String((error && error.message) || error) });
    return;
  }
  self.postMessage({ id, payload }, [...buffersOf(payload)]);
};
