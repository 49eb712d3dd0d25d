/* The referee queue follows the tables: every few seconds it fetches itself again and swaps in the open flags, their
   count and the decided list, unless the referee is working in the queue (a field or button has the focus, or a note
   or a correction has been typed), so that nothing typed is lost. */
(function () {
  "use strict";
  const every = 2000;
  function busy() {
    const queue = document.getElementById("queue");
    const active = document.activeElement;
    if (queue && active && active !== document.body && queue.contains(active)) return true;
    return Array.from(document.querySelectorAll('#queue input[name="note"]')).some((el) => el.value.trim() !== "") ||
      Array.from(document.querySelectorAll("#queue details.correct[open]")).length > 0;
  }
  function swap(doc, selector) {
    const fresh = doc.querySelector(selector), old = document.querySelector(selector);
    if (fresh && old) old.replaceWith(fresh);
  }
  async function refresh() {
    try {
      if (!busy()) {
        const resp = await fetch(location.href, { headers: { Accept: "text/html" }, cache: "no-store" });
        if (resp.ok) {
          const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
          ["#queue-count", "#queue-empty-box", "#queue", "#decided"].forEach((sel) => swap(doc, sel));
        }
      }
    } catch (e) {
      /* the server is away: try again at the next tick */
    } finally {
      setTimeout(refresh, every);
    }
  }
  setTimeout(refresh, every);
})();
