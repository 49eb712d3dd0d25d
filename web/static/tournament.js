/* The tournament page re-fetches its body (server-rendered, the same template) every few seconds. */
(function () {
  "use strict";
  const box = document.getElementById("tournament");
  const conn = document.getElementById("conn");
  const stamp = document.getElementById("updated");
  const every = Math.max(0.2, Number(box.dataset.every || 5)) * 1000;
  function mark(ok) {
    conn.classList.toggle("on", ok);
    stamp.textContent = ok ? new Date().toLocaleTimeString() : "failed, retrying…";
  }
  async function refresh() {
    try {
      const resp = await fetch(box.dataset.src, { headers: { Accept: "text/html" }, cache: "no-store" });
      if (!resp.ok) throw new Error(resp.status);
      box.innerHTML = await resp.text();
      mark(true);
    } catch (e) {
      mark(false);
    } finally {
      setTimeout(refresh, every);
    }
  }
  stamp.textContent = new Date().toLocaleTimeString();
  setTimeout(refresh, every);
})();
