/**
 * The dashboard's one page. Served from this string (built into the binary with the rest of the
 * code: no file to ship, no external asset). Its script is the ES modules of browser/, served
 * through page_script.ts's table: `<script type="module" src="/app.js">` (a module script, deferred
 * by default), whose relative imports (/dom.js, /state.js, …) load the others from this origin, as
 * the CSP's `script-src 'self'` allows; its styles are page_styles.ts. The page has no inline
 * script or style (the CSP forbids them).
 */
export const PAGE_HTML = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Keynobi</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/app.css">
<script type="module" src="/app.js"></script>
</head>
<body>
<header class="top">
  <div class="brand">Keynobi <span id="app-version" class="muted"></span></div>
  <div class="top-facts">
    <span>Project: <b id="app-project">…</b></span>
    <span id="app-uptime" class="muted"></span>
    <span id="live" class="pill off">connecting…</span>
  </div>
</header>
<div id="mismatch" class="banner" hidden></div>
<div id="toast" class="toast" hidden></div>
<main class="grid">
  <section class="card" id="card-sessions">
    <h2>MCP sessions</h2>
    <table class="rows" id="sessions-table">
      <thead><tr><th>Client</th><th>PID</th><th>Version</th><th>Project</th><th>Since</th></tr></thead>
      <tbody></tbody>
    </table>
    <p class="empty" id="sessions-empty">No agent is attached. Agents attach when their MCP client runs <code>keynobi --mcp</code> while the app runs.</p>
    <h3>Standalone servers</h3>
    <table class="rows" id="standalone-table">
      <thead><tr><th>PID</th><th>Version</th><th>Project</th><th>Why standalone</th></tr></thead>
      <tbody></tbody>
    </table>
    <p class="empty" id="standalone-empty">None.</p>
  </section>

  <section class="card" id="card-devices">
    <h2>Devices</h2>
    <div id="devices"></div>
    <p class="empty" id="devices-empty">No device. Start an emulator or plug in a phone with USB debugging on.</p>
  </section>

  <section class="card" id="card-projects">
    <h2>Projects</h2>
    <p>Open: <b id="open-project">none</b> <span id="open-trust" class="pill"></span>
      <button id="trust-open" class="small" hidden>Trust it</button></p>
    <div id="project-form" class="inline">
      <input id="project-path" type="text" placeholder="/path/to/android/project" spellcheck="false" autocomplete="off">
      <button type="button" id="do-open">Open</button>
      <button type="button" id="do-trust">Trust</button>
    </div>
    <table class="rows" id="trusted-table">
      <thead><tr><th>Trusted project</th><th>Since</th><th></th></tr></thead>
      <tbody></tbody>
    </table>
    <p class="empty" id="trusted-empty">No trusted project: builds are refused until you trust one.</p>
  </section>

  <section class="card wide" id="card-build">
    <h2>Build <span id="build-title" class="muted"></span></h2>
    <div class="build-head">
      <div>
        <div id="build-origin" class="origin"></div>
        <div id="build-progress" class="muted"></div>
      </div>
      <button id="cancel-build" class="danger" hidden>Cancel build</button>
    </div>
    <div id="build-log" class="log" tabindex="0"></div>
    <div class="log-foot">
      <span id="log-info" class="muted"></span>
      <button id="log-follow" class="small" hidden>Jump to the newest lines</button>
    </div>
  </section>

  <section class="card" id="card-history">
    <h2>Build history</h2>
    <div id="chart-durations" class="chart"></div>
    <div class="scroll">
      <table class="rows" id="history-table">
        <thead><tr><th>#</th><th>Task</th><th>Result</th><th>Duration</th><th>Origin</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
    <p class="empty" id="history-empty">No build yet.</p>
  </section>

  <section class="card" id="card-crashes">
    <h2>Crashes</h2>
    <div id="chart-crashes" class="chart"></div>
    <div class="scroll">
      <table class="rows" id="crash-table">
        <thead><tr><th>Count</th><th>Exception</th><th>Package</th><th>Last seen</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
    <p class="empty" id="crashes-empty">No crash seen (crashes show once an agent streams logcat).</p>
  </section>

  <section class="card" id="card-debug">
    <h2>Debug sessions</h2>
    <div id="chart-launch" class="chart"></div>
    <div class="scroll">
      <table class="rows" id="debug-table">
        <thead><tr><th>Session</th><th>Package</th><th>Device</th><th>State</th><th>Crashes</th><th>Launch</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
    <p class="empty" id="debug-empty">No install recorded yet.</p>
    <div id="timeline" hidden>
      <h3 id="timeline-title"></h3>
      <ol id="timeline-list" class="timeline"></ol>
    </div>
  </section>

  <section class="card wide" id="card-activity">
    <h2>Activity <span id="activity-count" class="muted"></span></h2>
    <div class="filters">
      <label>Session <select id="filter-session"><option value="">all</option></select></label>
      <label>Tool <select id="filter-tool"><option value="">all</option></select></label>
    </div>
    <div id="activity" class="vlist" tabindex="0"><div class="vspace"></div></div>
  </section>

  <section class="card wide" id="card-setup">
    <h2>Setup</h2>
    <p class="muted">Register keynobi with your MCP clients:</p>
    <pre id="setup-commands" class="commands"></pre>
    <button id="copy-setup">Copy setup commands</button>
    <h3>Agent skill</h3>
    <p id="skill-status" class="muted"></p>
    <button id="install-skill">Install for Claude Code</button>
    <button id="copy-skill">Copy the skill (other clients)</button>
  </section>
</main>
<dialog id="confirm">
  <div>
    <h2 id="confirm-title"></h2>
    <p id="confirm-message"></p>
    <div class="dialog-buttons">
      <button value="cancel" id="confirm-no">Keep as is</button>
      <button value="ok" id="confirm-yes" class="danger"></button>
    </div>
  </div>
</dialog>
</body>
</html>
`;

/**
 * The page's icon (a browser asks for it, and for /favicon.ico, on every page: a 404 each time
 * otherwise). A rounded square with a "K", drawn here: no file to ship.
 */
export const FAVICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="7" fill="#2f6fde"/>' +
  '<path d="M10 7v18M10 16l10-9M13 13l8 12" stroke="#fff" stroke-width="3.4" ' +
  'stroke-linecap="round" fill="none"/></svg>';
