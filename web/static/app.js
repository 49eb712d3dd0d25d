/* unotable pages: one EventSource per page, a `snapshot` then `update`s; every view redraws from the state. */
(function () {
  "use strict";
  const UT = {};
  const SYMBOL = { skip: "⊘", reverse: "⇄", draw2: "+2", wild: "W", "wild-draw4": "+4" };

  UT.cardLabel = function (code) {
    if (!code) return "—";
    if (code === "wild" || code === "wild-draw4") return SYMBOL[code];
    const value = code.split("-").slice(1).join("-");
    return SYMBOL[value] || value;
  };
  UT.cardColor = function (code) {
    if (!code) return "";
    return code.startsWith("wild") ? "black" : code.split("-")[0];
  };
  function paintCard(el, code) {
    el.dataset.card = code || "";
    el.className = el.className.replace(/\bc-\w+/g, "").trim();
    if (code) el.classList.add("c-" + UT.cardColor(code));
    el.firstElementChild.textContent = UT.cardLabel(code);
  }
  UT.paintCard = paintCard;
  function name(state, seat) {
    if (seat === null || seat === undefined) return "?";
    const p = (state.players || [])[seat];
    return p ? p + " (" + seat + ")" : "seat " + seat;
  }
  UT.describe = function (ev, state) {
    const who = "seat" in ev ? name(state, ev.seat) : "";
    switch (ev.type) {
      case "match_start": return "match starts (" + ev.ruleset + "): " + (ev.players || []).join(", ");
      case "hand_start": return "hand dealt by " + name(state, ev.dealer);
      case "starter": return "starter " + ev.card + (ev.color ? " → " + ev.color : "");
      case "play": return who + " plays " + (ev.cards || []).join(" + ") + (ev.color ? " → " + ev.color : "");
      case "draw": return who + " draws " + (ev.count || 1);
      case "pass": return who + " passes";
      case "uno": return who + " says UNO";
      case "color": return who + " names " + ev.color;
      case "challenge": return who + " challenges";
      case "reveal": return who + " reveals " + (Array.isArray(ev.cards) ? ev.cards.join(" ") : ev.cards + " cards");
      case "ruling": return "referee " + (ev.by || "") + ": flag " + ev.flag + " " + ev.decision + (ev.note ? " (" + ev.note + ")" : "");
      case "correction": return "referee " + (ev.by || "") + ": line " + ev.line + (ev.event ? " corrected" : " struck");
      case "insert": return "referee " + (ev.by || "") + ": after line " + ev.after + ", missed: " + (ev.event ? UT.describe(ev.event, state) : "?");
      default: return ev.type;
    }
  };

  /* Connect to a table's stream; handlers get (payload, kind). Shows the connection state in #conn. */
  UT.connect = function (table, opts, onData) {
    const params = new URLSearchParams();
    if (opts.delay) params.set("delay", opts.delay);
    if (opts.view) params.set("view", opts.view);
    const url = "/api/tables/" + encodeURIComponent(table) + "/stream" + (params.toString() ? "?" + params : "");
    const conn = document.getElementById("conn");
    const es = new EventSource(url);
    es.addEventListener("open", () => { if (conn) { conn.textContent = "live"; conn.classList.add("on"); } });
    es.addEventListener("error", () => { if (conn) { conn.textContent = "reconnecting…"; conn.classList.remove("on"); } });
    ["snapshot", "update"].forEach((kind) =>
      es.addEventListener(kind, (e) => { const data = JSON.parse(e.data); data.kind = kind; data.receivedLocal = Date.now(); onData(data, kind); }));
    window.__utStream = es;
    return es;
  };

  function seatsRows(tbody, state) {
    tbody.innerHTML = "";
    (state.players || []).forEach((p, i) => {
      const tr = document.createElement("tr");
      tr.dataset.seat = i;
      if (state.turn === i) tr.classList.add("turn");
      const cells = [i, p, (state.counts || [])[i], (state.uno || [])[i] ? "UNO" : "", (state.owed || [])[i] || ""];
      cells.forEach((v, j) => { const td = document.createElement("td"); td.textContent = v === undefined ? "" : v; if (j === 2) td.className = "count"; tr.appendChild(td); });
      tbody.appendChild(tr);
    });
  }

  UT.livePage = function (table) {
    const log = document.getElementById("log");
    // the MJPEG stream never finishes loading: start it after the page's load event, so the page counts as loaded
    const cam = document.getElementById("camera");
    const startCamera = () => { cam.src = cam.dataset.src; };
    if (document.readyState === "complete") startCamera(); else window.addEventListener("load", startCamera);
    // an MJPEG <img> whose stream ended (a server restart) is never asked for again: ask, with a fresh URL
    const restartCamera = () => { const src = cam.dataset.src; cam.src = src + (src.includes("?") ? "&" : "?") + "r=" + Date.now(); };
    cam.addEventListener("error", () => setTimeout(restartCamera, 1000));
    let connectedBefore = false;
    let timer = null;
    function addEvents(events, state) {
      events.forEach((ev) => {
        const li = document.createElement("li");
        li.value = ev.log_line; li.dataset.line = ev.log_line; li.dataset.type = ev.type;
        if (ev.source === "referee") li.classList.add("referee");
        li.textContent = "t=" + Number(ev.t).toFixed(1) + "  " + UT.describe(ev, state);
        log.appendChild(li);
        if (ev.type === "correction" && ev.event === null) {
          const hit = log.querySelector('li[data-line="' + ev.line + '"]'); if (hit) hit.classList.add("struck");
        }
      });
      while (log.children.length > 400) log.removeChild(log.firstChild);
      log.scrollTop = log.scrollHeight;
    }
    function render(d) {
      const s = d.state || {};
      paintCard(document.getElementById("top-card"), s.top_card);
      const col = document.getElementById("color");
      col.textContent = s.color || "—"; col.className = "swatch" + (s.color ? " c-" + s.color : "");
      document.getElementById("direction").textContent = s.direction === -1 ? "↺ counter-clockwise" : "↻ clockwise";
      document.getElementById("turn").textContent = s.turn === null || s.turn === undefined ? "—" : name(s, s.turn);
      document.getElementById("phase").textContent = s.phase || "—";
      document.getElementById("hand").textContent = s.hand || 0;
      document.getElementById("pending-row").hidden = !s.pending_draw;
      document.getElementById("pending").textContent = s.pending_draw || 0;
      seatsRows(document.querySelector("#seats tbody"), s);
      document.getElementById("open-flags").textContent = (d.flags || []).filter((f) => f.status === "open").length;
      const row = document.getElementById("timer-row");
      if (timer) { clearInterval(timer); timer = null; }
      if (s.turn_deadline !== null && s.turn_deadline !== undefined && s.phase === "playing") {
        row.hidden = false;
        const left0 = s.turn_deadline - (s.last_event_t || 0), t0 = Date.now();
        const tick = () => { const left = left0 - (Date.now() - t0) / 1000; const el = document.getElementById("timer");
          el.textContent = left > 0 ? left.toFixed(1) + " s" : "over by " + (-left).toFixed(1) + " s"; };
        tick(); timer = setInterval(tick, 100);
      } else { row.hidden = true; }
    }
    UT.connect(table, {}, (d, kind) => {
      if (kind === "snapshot") {  // the first, or after a reconnect: the camera's stream ended with the old one
        log.innerHTML = "";
        if (connectedBefore && document.readyState === "complete") restartCamera();
        connectedBefore = true;
      }
      render(d); addEvents(d.events || [], d.state || {});
    });
  };

  UT.scoreboardPage = function (table) {
    UT.connect(table, {}, (d) => {
      const s = d.state || {}, sc = d.scores || {};
      const players = s.players || [];
      const n = Math.max(players.length, (sc.totals || []).length);
      const names = Array.from({ length: n }, (_, i) => players[i] || "seat " + i);
      const table_ = document.getElementById("scores");
      table_.tHead.innerHTML = "<tr><th>Hand</th>" + names.map((p) => "<th></th>").join("") + "</tr>";
      names.forEach((p, i) => { table_.tHead.rows[0].cells[i + 1].textContent = p; });
      const body = table_.tBodies[0]; body.innerHTML = "";
      (sc.hands || []).forEach((h, i) => {
        const tr = body.insertRow(); tr.dataset.hand = i + 1; tr.insertCell().textContent = i + 1;
        names.forEach((_, j) => { tr.insertCell().textContent = h[j] === undefined ? "" : h[j]; });
      });
      const foot = table_.tFoot; foot.innerHTML = "";
      const tr = foot.insertRow(); tr.id = "totals"; tr.insertCell().textContent = "Total";
      names.forEach((_, j) => { const td = tr.insertCell(); td.textContent = (sc.totals || [])[j] || 0; td.dataset.seat = j; });
      const flags = d.flags || [];
      [["upheld", "Flags upheld"], ["open", "Flags open"], ["dismissed", "Flags dismissed"]].forEach(([status, label]) => {
        const row = foot.insertRow(); row.id = "flags-" + status; row.className = "flag-row"; row.insertCell().textContent = label;
        names.forEach((_, j) => { const td = row.insertCell(); td.dataset.seat = j;
          td.textContent = flags.filter((f) => f.status === status && f.seat === j).length; });
      });
      const pen = foot.insertRow(); pen.id = "penalty-cards"; pen.className = "flag-row"; pen.insertCell().textContent = "Penalty cards upheld";
      names.forEach((_, j) => { const td = pen.insertCell(); td.dataset.seat = j;
        td.textContent = flags.filter((f) => f.status === "upheld" && f.seat === j && f.penalty).reduce((a, f) => a + f.penalty.cards, 0); });
      document.getElementById("target").textContent = sc.target || "—";
      document.getElementById("rule-note").textContent = sc.lowest_wins ? "lowest total wins (Olympic)" : "highest total wins";
      const w = sc.winner;
      document.getElementById("winner").textContent = w === null || w === undefined
        ? (sc.over ? "Match over: a tie (the rules name no tie-break)" : "") : "Winner: " + names[w];
    });
  };

  UT.overlayPage = function (table, delay) {
    const banners = document.getElementById("ov-banners");
    const uno = document.getElementById("ov-uno");
    let unoTimer = null;
    function render(d) {
      const s = d.state || {}, sc = d.scores || {};
      paintCard(document.getElementById("ov-top-card"), s.top_card);
      const col = document.getElementById("ov-color");
      col.textContent = s.color || "—"; col.dataset.color = s.color || "";
      col.className = "ov-color" + (s.color ? " c-" + s.color : "");
      const dir = document.getElementById("ov-direction");
      dir.textContent = s.direction === -1 ? "↺" : "↻"; dir.dataset.direction = s.direction || 1;
      const seats = document.getElementById("ov-seats"); seats.innerHTML = "";
      (s.players || []).forEach((p, i) => {
        const div = document.createElement("div");
        div.className = "ov-seat" + (s.turn === i ? " turn" : ""); div.dataset.seat = i;
        const nm = document.createElement("div"); nm.className = "name"; nm.textContent = p;
        const ct = document.createElement("div"); ct.className = "count"; ct.textContent = (s.counts || [])[i];
        const scd = document.createElement("div"); scd.className = "score"; scd.textContent = ((sc.totals || [])[i] || 0) + " pts";
        div.append(nm, ct, scd);
        if ((s.uno || [])[i]) { const u = document.createElement("div"); u.className = "uno"; u.textContent = "UNO"; div.appendChild(u); }
        seats.appendChild(div);
      });
    }
    function react(d) {
      const s = d.state || {};
      (d.events || []).forEach((ev) => {
        if (ev.type === "uno") {
          uno.textContent = "UNO!"; uno.hidden = false; uno.dataset.seat = ev.seat;
          if (unoTimer) clearTimeout(unoTimer);
          unoTimer = setTimeout(() => { uno.hidden = true; }, 2500);
        }
        if (ev.type === "ruling" && ev.decision === "upheld") {
          const f = (d.flags || []).find((x) => String(x.id) === String(ev.flag));
          const b = document.createElement("div"); b.className = "ov-banner"; b.dataset.flag = ev.flag;
          const r = document.createElement("span"); r.className = "rule"; r.textContent = "Referee upholds " + (f ? f.rule || f.code : "a flag");
          const m = document.createElement("span"); m.textContent = f ? f.message : "flag " + ev.flag;
          b.append(r, m); banners.appendChild(b);
          setTimeout(() => b.remove(), 10000);
        }
      });
    }
    UT.connect(table, { delay: delay, view: "public" }, (d, kind) => { render(d); if (kind === "update") react(d); });
  };

  window.UT = UT;
})();
