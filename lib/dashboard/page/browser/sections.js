/**
 * The snapshot's sections rendered, one renderer per section the live feed sends (app, devices,
 * builds, crashes, sessions, projects, setup), and the debug session timeline the user opens.
 * Every value is written with textContent (no HTML from data).
 */
import { act } from "./actions.js";
import { refreshSessionFilter, scheduleActivity, sessionsSeen } from "./activity.js";
import { log, openLog } from "./build_log.js";
import { crashChart, durationChart, launchChart } from "./charts.js";
import { $, clock, fill, h, rel, secs, tbody } from "./dom.js";
import { rerender } from "./state.js";

/** @type {string | null} */
let selectedSession = null;

/** @type {Record<string, (value: any) => void>} */
export const SECTIONS = {
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

// The debug session timeline, fetched when the user opens one.
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
    rerender("sessions");
  });
}
