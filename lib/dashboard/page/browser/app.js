/**
 * The dashboard page's script, served as /app.js exactly as this file reads (a classic script:
 * no import, no export). Plain browser JavaScript, no library, no external asset. It renders what
 * the live feed (/api/events, server-sent events) sends, never polls, and writes every value with
 * textContent (no HTML from data). Bounded: at most MAX_ACTIVITY entries held and only the
 * visible rows of them in the document; at most MAX_LINES build lines held, older ones fetched
 * when the log is scrolled to its top. ../page_script.ts reads those two bounds from this text.
 *
 * Type-checked by `deno check` against the DOM: this folder is a workspace member whose deno.json
 * sets checkJs and the DOM lib, in a program of its own (the DOM's types stay out of the rest).
 * Values from the app (sections, events, API answers) are JSON typed `any`: their shapes are
 * lib/dashboard/snapshot.ts's.
 */
"use strict";
(function () {
  const MAX_ACTIVITY = 10000;
  const MAX_LINES = 3000;
  const ROW_H = 24;
  const OLDER_LINES = 500;

  /**
   * A piece of the build log shown: lines from line `from`, or a gap of lines not shown live.
   * @typedef {{ from?: number, lines?: string[], gap?: number }} Chunk
   */
  /**
   * @typedef {{
   *   build: number | null, chunks: Chunk[], lines: number, following: boolean, pending: number,
   *   loading: boolean, atStart: boolean, held?: boolean,
   * }} LogState
   */

  /** @type {{ sections: Record<string, any>, connected: boolean }} */
  const state = { sections: {}, connected: false };
  /** @type {any[]} */
  let activity = []; // oldest first, at most MAX_ACTIVITY
  /** @type {Map<string, string>} */
  const sessionsSeen = new Map(); // session id -> label
  /** @type {Set<string>} */
  const toolsSeen = new Set();
  /** @type {any[] | null} */
  let filtered = null; // newest first, after filters (null: recompute)
  /** @type {LogState} */
  const log = {
    build: null,
    chunks: [],
    lines: 0,
    following: true,
    pending: 0,
    loading: false,
    atStart: false,
  };
  /** @type {string | null} */
  let selectedSession = null;

  /**
   * The page's element of that id, of that kind; throws when the page has none.
   * @template {HTMLElement} [T=HTMLElement]
   * @param {string} id
   * @param {new () => T} [kind]
   * @returns {T}
   */
  function $(id, kind) {
    const el = document.getElementById(id);
    if (!(el instanceof (kind ?? HTMLElement))) throw new Error("the page has no #" + id);
    return /** @type {T} */ (el);
  }
  /** @param {string} id */
  function tbody(id) {
    return $(id, HTMLTableElement).tBodies[0];
  }
  /**
   * An element: attrs "text" is its text, "cls" its class, "on…" a listener, others attributes.
   * @param {string} tag
   * @param {Record<string, any> | null} [attrs]
   * @param {...(Node | string | null | undefined)} children
   * @returns {HTMLElement}
   */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    if (attrs) {
      for (const k in attrs) {
        if (k === "text") el.textContent = attrs[k];
        else if (k === "cls") el.className = attrs[k];
        else if (k.slice(0, 2) === "on") el.addEventListener(k.slice(2), attrs[k]);
        else el.setAttribute(k, attrs[k]);
      }
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return el;
  }
  /**
   * @param {string} tag
   * @param {Record<string, string | number>} attrs
   * @returns {SVGElement}
   */
  function svg(tag, attrs) {
    const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const k in attrs) {
      if (k === "text") el.textContent = String(attrs[k]);
      else el.setAttribute(k, String(attrs[k]));
    }
    return el;
  }
  /**
   * @param {Element} box
   * @param {Node[]} rows
   */
  function fill(box, rows) {
    box.replaceChildren(...rows);
  }
  /**
   * @param {string} iso
   * @returns {string}
   */
  function ago(iso) {
    const t = Date.parse(iso);
    if (!isFinite(t)) return "";
    const s = Math.max(0, Math.round((Date.now() - t) / 1000));
    if (s < 60) return s + " s ago";
    if (s < 3600) return Math.round(s / 60) + " min ago";
    if (s < 86400) return Math.round(s / 3600) + " h ago";
    return Math.round(s / 86400) + " d ago";
  }
  // A relative time ("7 s ago") that the ticker below keeps advancing while the page is open:
  // sections are only re-sent when they change, so a time written once would freeze.
  /**
   * @param {string} tag
   * @param {string} iso
   * @param {string} pre
   * @param {string} post
   * @param {Record<string, any>} [attrs]
   */
  function rel(tag, iso, pre, post, attrs) {
    /** @type {Record<string, any>} */
    const a = Object.assign({}, attrs || {});
    a["data-at"] = iso;
    a["data-pre"] = pre;
    a["data-post"] = post;
    a.text = pre + ago(iso) + post;
    return h(tag, a);
  }
  setInterval(function () {
    const els = document.querySelectorAll("[data-at]");
    for (let i = 0; i < els.length; i++) {
      const el = els[i];
      const t = (el.getAttribute("data-pre") ?? "") + ago(el.getAttribute("data-at") ?? "") +
        (el.getAttribute("data-post") ?? "");
      if (el.textContent !== t) el.textContent = t;
    }
  }, 1000);
  /** @param {string} iso */
  function clock(iso) {
    const d = new Date(iso);
    return isFinite(d.getTime()) ? d.toLocaleTimeString([], { hour12: false }) : "";
  }
  /** @param {number | null | undefined} ms */
  function secs(ms) {
    if (ms === null || ms === undefined) return "";
    return ms < 10000 ? (ms / 1000).toFixed(1) + " s" : Math.round(ms / 1000) + " s";
  }
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let toastTimer;
  /**
   * @param {string} message
   * @param {boolean} [bad]
   */
  function toast(message, bad) {
    const t = $("toast");
    t.textContent = message;
    t.className = bad ? "toast bad" : "toast";
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () {
      t.hidden = true;
    }, 5000);
  }

  // ---- talking to the app ----
  /**
   * @param {string} path
   * @param {unknown} body
   * @returns {Promise<any>} the answer's JSON, with its httpStatus
   */
  function post(path, body) {
    return fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    }).then(function (r) {
      return r.json().then(function (j) {
        j.httpStatus = r.status;
        return j;
      });
    });
  }
  /**
   * @param {{ title: string, message: string, confirm_label: string }} prepared
   * @returns {Promise<boolean>}
   */
  function ask(prepared) {
    return new Promise(function (resolve) {
      const d = $("confirm", HTMLDialogElement);
      const yes = $("confirm-yes");
      const no = $("confirm-no");
      $("confirm-title").textContent = prepared.title;
      $("confirm-message").textContent = prepared.message;
      yes.textContent = prepared.confirm_label;
      /** @param {boolean} ok */
      function done(ok) {
        yes.onclick = null;
        no.onclick = null;
        d.close();
        resolve(ok);
      }
      yes.onclick = function () {
        done(true);
      };
      no.onclick = function () {
        done(false);
      };
      d.oncancel = function () {
        done(false);
      };
      d.showModal();
    });
  }
  // Every change: prepare (the app says what it would do), confirm, run.
  /**
   * @param {Record<string, unknown>} action
   * @returns {Promise<void>}
   */
  function act(action) {
    return post("/api/actions/prepare", action).then(function (p) {
      if (p.error) {
        if (p.needs_replace) {
          return ask({
            title: "Replace the installed skill?",
            message: p.error,
            confirm_label: "Continue",
          }).then(function (ok) {
            if (ok) return act(Object.assign({}, action, { replace: true }));
          });
        }
        toast(p.error, true);
        return;
      }
      return ask(p).then(function (ok) {
        if (!ok) {
          toast("Nothing changed.");
          return;
        }
        return post("/api/actions/run", { token: p.token }).then(function (r) {
          toast(r.error || r.message, !!r.error || !r.ok);
        });
      });
    }).catch(function (e) {
      toast("The app did not answer: " + e.message, true);
    });
  }

  // ---- sections ----
  /** @type {Record<string, (value: any) => void>} */
  const render = {
    app: function (a) {
      $("app-version").textContent = a.version ? "app " + a.version : "";
      $("app-project").textContent = a.project || "none";
      $("app-uptime").textContent = a.started_at ? "up since " + clock(a.started_at) : "";
      const b = $("mismatch");
      if (a.mismatch_hint) {
        b.textContent = "Version mismatch: " + a.mismatch_hint + ". " +
          a.mismatches.map(function (/** @type {any} */ m) {
            return (m.kind === "attached" ? "attached" : "standalone") + " pid " + m.pid +
              " runs " + (m.version || "an older release");
          }).join("; ") + ".";
        b.hidden = false;
      } else b.hidden = true;
      /** @type {any[]} */
      const attached = a.attached || [];
      sessionsSeen.set("pid:" + a.pid, "app (pid " + a.pid + ")");
      attached.forEach(function (s) {
        sessionsSeen.set(s.session_id, (s.client_name || "client") + " (pid " + s.pid + ")");
      });
      refreshSessionFilter(true);
      scheduleActivity();
      fill(
        tbody("sessions-table"),
        attached.map(function (s) {
          const odd = s.version !== a.version;
          return h(
            "tr",
            null,
            h("td", { text: s.client_name || "connecting…" }),
            h("td", { text: String(s.pid), cls: "num" }),
            h("td", { text: s.version, cls: odd ? "bad" : "" }),
            h("td", { text: s.project ? s.project + " (pinned)" : "follows the app" }),
            rel("td", s.since, "", "", { title: s.since }),
          );
        }),
      );
      $("sessions-empty").hidden = attached.length > 0;
      /** @type {any[]} */
      const st = a.standalone || [];
      fill(
        tbody("standalone-table"),
        st.map(function (s) {
          return h(
            "tr",
            null,
            h("td", { text: String(s.pid), cls: "num" }),
            h("td", {
              text: s.version || "older release",
              cls: s.version !== a.version ? "bad" : "",
            }),
            h("td", { text: s.project || "none" }),
            h("td", { text: s.reason }),
          );
        }),
      );
      $("standalone-empty").hidden = st.length > 0;
    },
    devices: function (list) {
      const box = $("devices");
      if (!Array.isArray(list)) {
        box.replaceChildren(h("p", { cls: "bad", text: list.error }));
        return;
      }
      box.replaceChildren(...list.map(function (d) {
        const shot = d.screenshot && d.screenshot.kept
          ? h("img", {
            src: "/api/devices/" + encodeURIComponent(d.serial) + "/screenshot?at=" +
              encodeURIComponent(d.screenshot.at),
            alt: "last screenshot of " + d.serial,
            title: "taken at " + clock(d.screenshot.at),
          })
          : h("div", {
            cls: "noshot",
            text: d.screenshot ? "screenshot too large to keep" : "no screenshot taken yet",
          });
        const info = h(
          "div",
          null,
          h(
            "div",
            null,
            h("b", { text: d.serial }),
            " ",
            h("span", { cls: d.state === "device" ? "pill on" : "pill warn", text: d.state }),
          ),
          h("div", {
            cls: "muted",
            text: [d.model, d.product, d.kind].filter(Boolean).join(" · "),
          }),
          d.screenshot
            ? rel(
              "div",
              d.screenshot.at,
              "screenshot ",
              ", " + d.screenshot.width + "×" + d.screenshot.height,
              { cls: "muted" },
            )
            : null,
          d.list
            ? h(
              "details",
              null,
              rel("summary", d.list.at, "last element list (", ")"),
              h("pre", { text: d.list.text }),
            )
            : h("div", { cls: "muted", text: "no element list yet" }),
        );
        return h("div", { cls: "device" }, shot, info);
      }));
      $("devices-empty").hidden = list.length > 0;
    },
    builds: function (b) {
      const r = b.running;
      const head = r || (b.history && b.history[0]);
      $("build-title").textContent = head
        ? "#" + head.id + " " + (head.tasks || [head.task]).join(" ")
        : "";
      $("build-origin").textContent = head ? head.origin_label : "No build yet.";
      if (r) {
        $("build-progress").textContent = "running " + secs(r.elapsed_ms) +
          (r.current_task ? " — " + r.current_task : "");
      } else if (head) {
        $("build-progress").textContent = head.status +
          (head.duration_ms !== null ? " in " + secs(head.duration_ms) : "") +
          (head.cancelled_label ? " — " + head.cancelled_label : "") +
          (head.summary ? " — " + head.summary : "");
      } else $("build-progress").textContent = "";
      const cancel = $("cancel-build");
      cancel.hidden = !r;
      cancel.dataset.id = r ? String(r.id) : "";
      if (head && log.build !== head.id && !log.loading && (r || log.build === null)) {
        openLog(head.id);
      }
      /** @type {any[]} */
      const hist = b.history || [];
      fill(
        tbody("history-table"),
        hist.map(function (x) {
          const errs = x.errors && x.errors.length ? h("ul", { cls: "errors" }) : null;
          if (errs) {
            errs.replaceChildren(...x.errors.map(function (/** @type {any} */ e) {
              return h("li", { text: (e.at ? e.at + ": " : "") + e.message });
            }));
          }
          return h(
            "tr",
            {
              cls: "click" + (log.build === x.id ? " selected" : ""),
              onclick: function () {
                openLog(x.id);
              },
            },
            h("td", { text: String(x.id) }),
            h("td", null, h("span", { text: x.task }), errs),
            h("td", {
              cls: "status-" + x.status,
              text: x.status + (x.error_count ? " (" + x.error_count + " errors)" : ""),
              title: x.cancelled_label || x.reason || "",
            }),
            h("td", { text: secs(x.duration_ms) }),
            h("td", { text: x.origin_label.replace(/^Started by /, "") }),
          );
        }),
      );
      $("history-empty").hidden = hist.length > 0;
      durationChart(hist);
    },
    crashes: function (c) {
      if (c.error) {
        tbody("crash-table").replaceChildren();
        $("crashes-empty").textContent = c.error;
        return;
      }
      fill(
        tbody("crash-table"),
        c.groups.map(function (/** @type {any} */ g) {
          return h(
            "tr",
            null,
            h("td", { text: String(g.count) }),
            h(
              "td",
              null,
              h("b", { text: g.exception_type || g.kind }),
              h("div", { cls: "muted", text: (g.message || "").slice(0, 160) }),
            ),
            h("td", { text: g.package || g.process || "" }),
            h("td", { text: g.last_seen, cls: "mono" }),
          );
        }),
      );
      $("crashes-empty").hidden = c.groups.length > 0;
    },
    sessions: function (list) {
      if (!Array.isArray(list)) {
        $("debug-empty").textContent = list.error;
        return;
      }
      fill(
        tbody("debug-table"),
        list.map(function (s) {
          return h(
            "tr",
            {
              cls: "click" + (selectedSession === s.id ? " selected" : ""),
              onclick: function () {
                openSession(s.id);
              },
            },
            h("td", { cls: "mono", text: s.id.slice(0, 14) }),
            h("td", { text: s.package }),
            h("td", { text: s.model || s.serial }),
            h("td", { text: s.state }),
            h("td", {
              text: String(s.counts.crashes + s.counts.anrs),
              cls: s.counts.crashes + s.counts.anrs ? "bad" : "",
            }),
            h("td", { text: s.launch_ms === null ? "" : s.launch_ms + " ms" }),
          );
        }),
      );
      $("debug-empty").hidden = list.length > 0;
      crashChart(list);
      launchChart(list);
    },
    projects: function (p) {
      $("open-project").textContent = p.open || "none";
      /** @type {any[]} */
      const trustedList = p.trusted || [];
      const trusted = trustedList.some(function (t) {
        return t.root === p.open;
      });
      const pill = $("open-trust");
      pill.textContent = p.open ? (trusted ? "trusted" : "not trusted: builds are refused") : "";
      pill.className = p.open ? (trusted ? "pill on" : "pill off") : "pill";
      const trustOpen = $("trust-open");
      trustOpen.hidden = !p.open || trusted;
      trustOpen.onclick = function () {
        act({ action: "trust_project", path: p.open });
      };
      const path = $("project-path", HTMLInputElement);
      if (!path.value && p.open) path.placeholder = p.open;
      fill(
        tbody("trusted-table"),
        trustedList.map(function (t) {
          return h(
            "tr",
            null,
            h("td", { text: t.root + (t.exists ? "" : " (folder missing)") }),
            rel("td", t.trusted_at, "", "", { title: t.trusted_at }),
            h(
              "td",
              null,
              h("button", {
                cls: "small",
                text: "Untrust",
                onclick: function () {
                  act({ action: "untrust_project", path: t.root });
                },
              }),
            ),
          );
        }),
      );
      $("trusted-empty").hidden = trustedList.length > 0;
    },
    setup: function (s) {
      $("setup-commands").textContent = (s.commands || []).join("\n");
      const sk = s.skill;
      $("skill-status").textContent = sk ? sk.detail + " (" + sk.path + ")" : "HOME is not set";
      $("install-skill", HTMLButtonElement).disabled = !sk || sk.state === "installed" ||
        sk.state === "outside";
    },
  };

  // ---- charts: plain SVG ----
  /**
   * @typedef {{ value: number, label: string, title: string, color?: string }} Bar
   */
  /**
   * @param {HTMLElement} box
   * @param {Bar[]} items
   * @param {string} unit
   * @param {string} color
   */
  function bars(box, items, unit, color) {
    const W = 440, H = 110, pad = 18;
    const max = Math.max(...items.map(function (i) {
      return i.value;
    })) || 1;
    const s = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img" });
    s.appendChild(svg("line", { x1: pad, y1: H - pad, x2: W, y2: H - pad, stroke: "#d8dce3" }));
    s.appendChild(
      svg("text", {
        x: 0,
        y: 10,
        text: (max < 10 ? max.toFixed(1) : Math.round(max)) + " " + unit,
      }),
    );
    const bw = items.length ? Math.min(28, (W - pad) / items.length - 2) : 0;
    items.forEach(function (it, i) {
      const bh = Math.max(1, (H - 2 * pad) * it.value / max);
      const x = pad + i * (bw + 2);
      const r = svg("rect", {
        x: x,
        y: H - pad - bh,
        width: bw,
        height: bh,
        fill: it.color || color,
        rx: 2,
      });
      r.appendChild(svg("title", { text: it.title }));
      s.appendChild(r);
      if (items.length <= 20) s.appendChild(svg("text", { x: x, y: H - 4, text: it.label }));
    });
    box.replaceChildren(s);
  }
  /** @type {Record<string, string>} */
  const STATUS_COLOR = {
    success: "#16803c",
    failed: "#c4321f",
    cancelled: "#b76e00",
    timeout: "#c4321f",
    running: "#2f6fde",
    interrupted: "#9aa3b2",
  };
  /** @param {any[]} hist */
  function durationChart(hist) {
    const items = hist.filter(function (b) {
      return b.duration_ms !== null;
    }).slice(0, 30).reverse().map(function (b) {
      return {
        value: b.duration_ms / 1000,
        label: "#" + b.id,
        color: STATUS_COLOR[b.status],
        title: "#" + b.id + " " + b.task + ": " + secs(b.duration_ms) + " (" + b.status + ")",
      };
    });
    const box = $("chart-durations");
    if (!items.length) {
      box.replaceChildren();
      return;
    }
    box.replaceChildren();
    box.appendChild(h("div", { cls: "muted", text: "Build duration (s), oldest to newest" }));
    const inner = h("div");
    box.appendChild(inner);
    bars(inner, items, "s", "#2f6fde");
  }
  /** @param {any[]} list */
  function crashChart(list) {
    const items = list.slice(0, 20).reverse().map(function (s) {
      const n = s.counts.crashes + s.counts.anrs;
      return {
        value: n,
        label: s.package.split(".").pop().slice(0, 6),
        title: s.id + " " + s.package + ": " + n + " crashes/ANRs",
      };
    });
    const box = $("chart-crashes");
    if (
      !items.some(function (i) {
        return i.value > 0;
      })
    ) {
      box.replaceChildren();
      return;
    }
    box.replaceChildren(h("div", { cls: "muted", text: "Crashes and ANRs per debug session" }));
    const inner = h("div");
    box.appendChild(inner);
    bars(inner, items, "", "#c4321f");
  }
  /** @param {any[]} list */
  function launchChart(list) {
    const items = list.filter(function (s) {
      return s.launch_ms !== null;
    }).slice(0, 20).reverse().map(function (s) {
      return {
        value: s.launch_ms,
        label: s.build_id ? "#" + s.build_id : s.id.slice(2, 8),
        title: s.id + ": launch " + s.launch_ms + " ms",
      };
    });
    const box = $("chart-launch");
    if (!items.length) {
      box.replaceChildren();
      return;
    }
    box.replaceChildren(h("div", { cls: "muted", text: "Launch time per install (ms)" }));
    const inner = h("div");
    box.appendChild(inner);
    bars(inner, items, "ms", "#7a4fd6");
  }

  // ---- debug session timeline (fetched when the user opens one) ----
  /** @param {string} id */
  function openSession(id) {
    selectedSession = id;
    fetch("/api/sessions/" + encodeURIComponent(id), { credentials: "same-origin" }).then(
      function (r) {
        return r.json();
      },
    ).then(function (v) {
      $("timeline").hidden = false;
      if (v.error) {
        $("timeline-title").textContent = v.error;
        $("timeline-list").replaceChildren();
        return;
      }
      $("timeline-title").textContent = v.session.package + " on " +
        (v.session.device.model || v.session.device.serial) + " — " + v.session.build.label;
      fill(
        $("timeline-list"),
        v.timeline.slice().reverse().map(function (/** @type {any} */ e) {
          // A UI flow run (run_ui_flow) shows its outcome at a glance.
          const k = e.kind === "uiFlow" ? "k " + (e.data && e.data.passed ? "ok" : "bad") : "k";
          // A screen recording links to its MP4 (served from the data directory's recordings).
          const file = e.kind === "recording" && e.data && typeof e.data.file === "string"
            ? e.data.file
            : null;
          const link = file
            ? h("a", {
              href: "/api/recordings/" + encodeURIComponent(file),
              download: file,
              text: " download",
            })
            : null;
          return h(
            "li",
            null,
            h("span", { cls: "muted", text: clock(e.at) + " " }),
            h("span", { cls: k, text: e.kind }),
            " " + e.summary,
            link,
          );
        }),
      );
      if (state.sections.sessions) render.sessions(state.sections.sessions);
    });
  }

  // ---- build log: chunks of lines, bounded, older fetched on scroll ----
  function logBox() {
    return $("build-log");
  }
  /** @param {Chunk} c */
  function chunkEl(c) {
    if (c.gap) {
      return h("div", {
        cls: "gap",
        text: "… " + c.gap + " lines not shown live (scroll up to read the log from the start)",
      });
    }
    return h("pre", { text: (c.lines ?? []).join("\n") });
  }
  function trimFront() {
    const box = logBox();
    while (log.lines > MAX_LINES && log.chunks.length > 1) {
      const c = log.chunks.shift();
      log.lines -= c && c.lines ? c.lines.length : 0;
      box.removeChild(/** @type {ChildNode} */ (box.firstChild));
      log.atStart = false;
    }
  }
  function trimBack() {
    const box = logBox();
    while (log.lines > MAX_LINES && log.chunks.length > 1) {
      const c = log.chunks.pop();
      log.lines -= c && c.lines ? c.lines.length : 0;
      box.removeChild(/** @type {ChildNode} */ (box.lastChild));
      log.following = false;
    }
  }
  function logInfo() {
    $("log-info").textContent = log.build === null
      ? ""
      : log.lines + " lines shown" + (log.atStart ? " (from the start)" : "") +
        (log.pending ? ", " + log.pending + " newer lines" : "") +
        (log.held ? " — the log passed its on-disk half: the rest shows when the build ends" : "");
    $("log-follow").hidden = log.following;
  }
  /**
   * @param {number} id
   * @param {number} from
   * @param {string[]} lines
   */
  function resetLog(id, from, lines) {
    if (log.build !== id) log.held = false;
    log.build = id;
    log.chunks = [];
    log.lines = 0;
    log.pending = 0;
    log.following = true;
    log.atStart = from === 0;
    const box = logBox();
    box.replaceChildren();
    appendChunk({ from: from, lines: lines });
  }
  /** @param {{ from: number, lines: string[] }} c */
  function appendChunk(c) {
    if (!c.lines.length) {
      logInfo();
      return;
    }
    const box = logBox();
    log.chunks.push(c);
    log.lines += c.lines.length;
    box.appendChild(chunkEl(c));
    trimFront();
    box.scrollTop = box.scrollHeight;
    logInfo();
  }
  /** @param {number} id */
  function openLog(id) {
    log.loading = true;
    return fetch("/api/builds/" + id + "/log?lines=" + OLDER_LINES, { credentials: "same-origin" })
      .then(function (r) {
        return r.json();
      }).then(function (v) {
        log.loading = false;
        if (v.error) {
          resetLog(id, 0, []);
          $("log-info").textContent = v.error;
          return;
        }
        resetLog(id, v.from, v.lines);
        if (state.sections.builds) render.builds(state.sections.builds);
      }, function () {
        log.loading = false;
      });
  }
  /** @param {any} ev a "lines" event */
  function onLines(ev) {
    if (ev.reset || log.build !== ev.build_id) {
      if (ev.reset || log.build === null || isRunning(ev.build_id)) {
        resetLog(ev.build_id, ev.from, ev.lines);
      }
      return;
    }
    if (!log.following) {
      log.pending += ev.lines.length + ev.skipped_lines;
      logInfo();
      return;
    }
    if (ev.skipped_lines) {
      log.chunks.push({ gap: ev.skipped_lines });
      logBox().appendChild(chunkEl({ gap: ev.skipped_lines }));
    }
    appendChunk({ from: ev.from, lines: ev.lines });
  }
  /** @param {number} id */
  function isRunning(id) {
    const b = state.sections.builds;
    return !!(b && b.running && b.running.id === id);
  }
  function loadOlder() {
    if (log.loading || log.atStart || log.build === null || !log.chunks.length) return;
    const first = log.chunks.find(function (c) {
      return !c.gap;
    });
    if (!first) return;
    log.loading = true;
    const box = logBox();
    const before = box.scrollHeight;
    fetch("/api/builds/" + log.build + "/log?before=" + first.from + "&lines=" + OLDER_LINES, {
      credentials: "same-origin",
    }).then(function (r) {
      return r.json();
    }).then(function (v) {
      log.loading = false;
      if (v.error || !v.lines.length) {
        log.atStart = true;
        logInfo();
        return;
      }
      const c = { from: v.from, lines: v.lines };
      log.chunks.unshift(c);
      log.lines += v.lines.length;
      box.insertBefore(chunkEl(c), box.firstChild);
      log.atStart = v.from === 0;
      trimBack();
      box.scrollTop += box.scrollHeight - before;
      logInfo();
    }, function () {
      log.loading = false;
    });
  }
  logBox().addEventListener("scroll", function () {
    const box = logBox();
    if (box.scrollTop < 40) loadOlder();
    const atEnd = box.scrollHeight - box.scrollTop - box.clientHeight < 30;
    if (!atEnd && log.following && box.scrollTop > 0) {
      log.following = false;
      logInfo();
    }
  });
  $("log-follow").addEventListener("click", function () {
    if (log.build !== null) openLog(log.build);
  });

  // ---- activity: newest first, filterable, only visible rows in the document ----
  // Entries of an attached session name it; the app's own and a standalone server's name a pid.
  /**
   * @param {any} e an activity entry
   * @returns {string}
   */
  function whoKey(e) {
    if (e.kind === "user") return "user";
    return e.session ? e.session : "pid:" + e.pid;
  }
  /** @param {number} pid */
  function whoLabel(pid) {
    const app = state.sections.app;
    if (app && pid === app.pid) return "app (pid " + pid + ")";
    return "pid " + pid + " (standalone)";
  }
  /** @param {any} e an activity entry */
  function who(e) {
    if (e.kind === "user") return "you (dashboard)";
    const key = whoKey(e);
    return sessionsSeen.get(key) ||
      (e.session ? "session " + e.session.slice(0, 8) : whoLabel(e.pid));
  }
  /**
   * @param {any[]} entries
   * @param {boolean} reset
   */
  function addActivity(entries, reset) {
    if (reset) activity = [];
    for (const e of entries) {
      activity.push(e);
      const key = whoKey(e);
      if (key !== "user" && !sessionsSeen.has(key)) {
        sessionsSeen.set(key, e.session ? "session " + e.session.slice(0, 8) : whoLabel(e.pid));
      }
      if (e.kind === "tool" && !toolsSeen.has(e.name)) {
        toolsSeen.add(e.name);
        refreshToolFilter();
      }
    }
    if (activity.length > MAX_ACTIVITY) activity.splice(0, activity.length - MAX_ACTIVITY);
    refreshSessionFilter();
    filtered = null;
    scheduleActivity();
  }
  /** @param {boolean} [labelsChanged] */
  function refreshSessionFilter(labelsChanged) {
    const sel = $("filter-session", HTMLSelectElement);
    if (!labelsChanged && sel.options.length === sessionsSeen.size + 2) return;
    const cur = sel.value;
    sel.replaceChildren(
      h("option", { value: "", text: "all" }),
      h("option", { value: "user", text: "you (dashboard)" }),
    );
    sessionsSeen.forEach(function (label, id) {
      sel.appendChild(h("option", { value: id, text: label }));
    });
    sel.value = cur;
  }
  function refreshToolFilter() {
    const sel = $("filter-tool", HTMLSelectElement);
    const cur = sel.value;
    sel.replaceChildren(h("option", { value: "", text: "all" }));
    Array.from(toolsSeen).sort().forEach(function (t) {
      sel.appendChild(h("option", { value: t, text: t }));
    });
    sel.value = cur;
  }
  function computeFiltered() {
    const s = $("filter-session", HTMLSelectElement).value;
    const t = $("filter-tool", HTMLSelectElement).value;
    const out = [];
    for (let i = activity.length - 1; i >= 0; i--) {
      const e = activity[i];
      if (s && whoKey(e) !== s) continue;
      if (t && e.name !== t) continue;
      out.push(e);
    }
    return out;
  }
  /** The activity list's spacer: as tall as all rows, holding the visible ones. */
  function activitySpace() {
    return /** @type {HTMLElement} */ ($("activity").firstChild);
  }
  let activityFrame = 0;
  function scheduleActivity() {
    if (!activityFrame) {
      activityFrame = requestAnimationFrame(function () {
        activityFrame = 0;
        drawActivity();
      });
    }
  }
  function drawActivity() {
    if (filtered === null) filtered = computeFiltered();
    const box = $("activity");
    const space = activitySpace();
    space.style.height = (filtered.length * ROW_H) + "px";
    const first = Math.max(0, Math.floor(box.scrollTop / ROW_H) - 5);
    const last = Math.min(filtered.length, first + Math.ceil(box.clientHeight / ROW_H) + 10);
    const rows = [];
    for (let i = first; i < last; i++) {
      const e = filtered[i];
      const row = h(
        "div",
        { cls: "vrow " + e.kind + " st-" + e.status },
        h("span", { cls: "t", text: clock(e.at) }),
        h("span", { cls: "who", text: who(e) }),
        h("span", { cls: "n", text: e.name }),
        h("span", { cls: "s", text: e.summary, title: e.summary }),
      );
      row.style.top = (i * ROW_H) + "px";
      rows.push(row);
    }
    space.replaceChildren(...rows);
    $("activity-count").textContent = filtered.length === activity.length
      ? activity.length + " entries"
      : filtered.length + " of " + activity.length + " entries";
  }
  $("activity").addEventListener("scroll", scheduleActivity);
  $("filter-session").addEventListener("change", function () {
    filtered = null;
    scheduleActivity();
  });
  $("filter-tool").addEventListener("change", function () {
    filtered = null;
    scheduleActivity();
  });

  // ---- the user's actions ----
  $("cancel-build").addEventListener("click", function () {
    act({ action: "cancel_build", build_id: Number($("cancel-build").dataset.id) });
  });
  function pathInput() {
    const v = $("project-path", HTMLInputElement).value.trim();
    if (!v) toast("Type the project's folder (an absolute path) first.", true);
    return v;
  }
  $("do-open").addEventListener("click", function () {
    const p = pathInput();
    if (p) act({ action: "open_project", path: p });
  });
  $("do-trust").addEventListener("click", function () {
    const p = pathInput();
    if (p) act({ action: "trust_project", path: p });
  });
  $("install-skill").addEventListener("click", function () {
    act({ action: "install_skill" });
  });
  /**
   * @param {string} text
   * @param {string} what
   */
  function copy(text, what) {
    const done = function () {
      post("/api/actions/copied", { what: what }).then(function (r) {
        toast(r.message || r.error, !!r.error);
      });
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, function () {
        toast("The browser refused the clipboard: select the text and copy it.", true);
      });
    } else toast("No clipboard here: select the text and copy it.", true);
  }
  $("copy-setup").addEventListener("click", function () {
    copy($("setup-commands").textContent ?? "", "setup_commands");
  });
  $("copy-skill").addEventListener("click", function () {
    fetch("/api/skill", { credentials: "same-origin" }).then(function (r) {
      return r.text();
    }).then(
      function (t) {
        copy(t, "skill");
      },
      function (e) {
        toast("The app did not answer: " + e.message, true);
      },
    );
  });

  // ---- the live feed ----
  function connect() {
    const es = new EventSource("/api/events");
    es.addEventListener("open", function () {
      state.connected = true;
      $("live").textContent = "live";
      $("live").className = "pill on";
    });
    es.addEventListener("error", function () {
      state.connected = false;
      $("live").textContent = "reconnecting…";
      $("live").className = "pill off";
    });
    es.addEventListener("section", function (m) {
      const d = JSON.parse(m.data);
      state.sections[d.name] = d.value;
      if (render[d.name]) {
        try {
          render[d.name](d.value);
        } catch (e) {
          console.error(d.name, e);
        }
      }
    });
    es.addEventListener("activity_reset", function (m) {
      addActivity(JSON.parse(m.data).entries, true);
    });
    es.addEventListener("activity", function (m) {
      addActivity(JSON.parse(m.data).entries, false);
    });
    es.addEventListener("lines", function (m) {
      onLines(JSON.parse(m.data));
    });
    es.addEventListener("log_held", function (m) {
      const d = JSON.parse(m.data);
      if (d.build_id === log.build) {
        log.held = true;
        logInfo();
      }
    });
  }

  // What the page holds, for the user's bug reports and the browser test.
  Object.assign(globalThis, {
    keynobiDashboard: function () {
      return {
        connected: state.connected,
        activity_held: activity.length,
        activity_rows: activitySpace().childNodes.length,
        log_build: log.build,
        log_lines_held: log.lines,
        log_following: log.following,
        sections: Object.keys(state.sections),
      };
    },
  });
  connect();
})();
