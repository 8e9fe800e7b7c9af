/**
 * The user's confirmed actions: every change is prepared (the app says what it would do),
 * confirmed in the page's dialog, then run; and the copies to the clipboard, which the app records.
 */
import { $, toast } from "./dom.js";

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
export function act(action) {
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

function pathInput() {
  const v = $("project-path", HTMLInputElement).value.trim();
  if (!v) toast("Type the project's folder (an absolute path) first.", true);
  return v;
}
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

/** The buttons of the user's actions: cancel, open, trust, install the skill, copy. */
export function wireActions() {
  $("cancel-build").addEventListener("click", function () {
    act({ action: "cancel_build", build_id: Number($("cancel-build").dataset.id) });
  });
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
}
