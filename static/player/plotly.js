// plotly.js, loaded once per page as a classic script (kept on the window: a second player,
// or a second copy of these modules, finds it loading or loaded).
export function loadPlotly(url) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__mplPlotly) {
    window.__mplPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => { window.__mplPlotly = null; reject(new Error("could not load " + url)); };
      document.head.appendChild(script);
    });
  }
  return window.__mplPlotly;
}
