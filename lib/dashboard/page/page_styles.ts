/** The dashboard page's styles (served as /app.css; no external font or asset). */
export const PAGE_STYLES = String.raw`
:root {
  --bg: #f4f5f7; --card: #fff; --ink: #1d2330; --muted: #6b7280; --line: #e3e6eb;
  --accent: #2f6fde; --ok: #16803c; --bad: #c4321f; --warn: #b76e00; --run: #2f6fde;
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, Ubuntu, sans-serif;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 12px; }
.top { display: flex; justify-content: space-between; align-items: center; padding: 10px 18px;
  background: #1d2330; color: #fff; }
.top .muted { color: #aab2c0; }
.brand { font-weight: 700; font-size: 17px; }
.top-facts { display: flex; gap: 16px; align-items: center; }
.pill { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; background: #e8edf7; color: #243b6b; }
.pill.on { background: #d7f5e0; color: #0f5e2b; }
.pill.off { background: #fde2dd; color: #8a2414; }
.pill.warn { background: #fff0d1; color: #7a4a00; }
.banner { background: #fff0d1; color: #5b3800; border-bottom: 1px solid #f0c36d; padding: 10px 18px; font-weight: 600; }
.toast { position: fixed; right: 18px; bottom: 18px; background: #1d2330; color: #fff; padding: 10px 14px;
  border-radius: 6px; max-width: 480px; z-index: 10; }
.toast.bad { background: var(--bad); }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(400px, 1fr)); gap: 14px; padding: 14px 18px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; min-width: 0; }
.card.wide { grid-column: 1 / -1; }
h2 { font-size: 15px; margin: 0 0 8px; }
h3 { font-size: 13px; margin: 12px 0 6px; color: var(--muted); }
.muted { color: var(--muted); font-weight: normal; }
.empty { color: var(--muted); margin: 6px 0; }
table.rows { width: 100%; border-collapse: collapse; }
table.rows th { text-align: left; font-weight: 600; color: var(--muted); font-size: 12px; border-bottom: 1px solid var(--line); padding: 3px 6px; }
table.rows td { border-bottom: 1px solid var(--line); padding: 4px 6px; vertical-align: top; overflow-wrap: anywhere; }
table.rows tr.click { cursor: pointer; }
table.rows td[class^="status-"] { white-space: nowrap; }
table.rows td.num { white-space: nowrap; overflow-wrap: normal; font-variant-numeric: tabular-nums; }
table.rows tr.click:hover, table.rows tr.selected { background: #eef3fd; }
.scroll { max-height: 260px; overflow: auto; }
.status-success, .ok { color: var(--ok); font-weight: 600; }
.status-failed, .status-timeout, .status-interrupted, .bad { color: var(--bad); font-weight: 600; }
.status-cancelled { color: var(--warn); font-weight: 600; }
.status-running { color: var(--run); font-weight: 600; }
.errors { margin: 2px 0 0; padding-left: 16px; color: var(--bad); font-size: 12px; }
button { white-space: nowrap; font: inherit; padding: 5px 12px; border-radius: 6px; border: 1px solid #c9ced8; background: #fff; cursor: pointer; }
button:hover { background: #f0f3f8; }
button.danger { background: var(--bad); border-color: var(--bad); color: #fff; }
button.danger:hover { background: #a82817; }
button.small { padding: 2px 8px; font-size: 12px; }
.inline { display: flex; gap: 6px; margin: 8px 0; }
.inline input { flex: 1; font: inherit; padding: 5px 8px; border: 1px solid #c9ced8; border-radius: 6px; min-width: 0; }
.build-head { display: flex; justify-content: space-between; align-items: center; gap: 12px; margin-bottom: 8px; }
.origin { font-weight: 600; }
.log { height: 300px; overflow: auto; background: #10141c; color: #d6dbe4; border-radius: 6px; padding: 6px 10px; }
.log pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.log .gap { color: #f0c36d; font-style: italic; margin: 2px 0; }
.log .err { color: #ff8f80; }
.log-foot { display: flex; justify-content: space-between; align-items: center; margin-top: 4px; min-height: 26px; }
.filters { display: flex; gap: 16px; margin-bottom: 6px; }
.filters select { font: inherit; padding: 2px 4px; max-width: 320px; }
.vlist { position: relative; height: 320px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
.vspace { position: relative; width: 100%; }
.vrow { position: absolute; left: 0; right: 0; height: 24px; line-height: 24px; padding: 0 8px; display: flex; gap: 10px;
  white-space: nowrap; overflow: hidden; border-bottom: 1px solid #f0f1f4; font-size: 12.5px; }
.vrow .t { color: var(--muted); width: 72px; flex: none; }
.vrow .who { width: 150px; flex: none; overflow: hidden; text-overflow: ellipsis; }
.vrow .n { width: 170px; flex: none; font-weight: 600; overflow: hidden; text-overflow: ellipsis; }
.vrow .s { overflow: hidden; text-overflow: ellipsis; }
.vrow.user { background: #f3f8ff; }
.vrow.st-error .n, .vrow.st-refused .n { color: var(--bad); }
.device { display: flex; gap: 12px; border-bottom: 1px solid var(--line); padding: 8px 0; }
.device img { width: 96px; border: 1px solid var(--line); border-radius: 4px; background: #000; }
.device .noshot { width: 96px; height: 160px; border: 1px dashed var(--line); border-radius: 4px; color: var(--muted);
  display: flex; align-items: center; justify-content: center; text-align: center; font-size: 11px; }
.device details pre { max-height: 160px; overflow: auto; background: #f7f8fa; padding: 6px; margin: 4px 0 0; }
.chart svg { display: block; width: 100%; height: auto; }
.chart text { font-size: 10px; fill: var(--muted); }
.commands { background: #f7f8fa; padding: 8px; border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 180px; overflow: auto; }
.timeline { max-height: 220px; overflow: auto; padding-left: 18px; margin: 0; font-size: 12.5px; }
.timeline li { margin: 2px 0; overflow-wrap: anywhere; }
.timeline .k { font-weight: 600; }
dialog { border: none; border-radius: 10px; padding: 18px 20px; max-width: 520px; box-shadow: 0 10px 40px rgba(0,0,0,.3); }
dialog::backdrop { background: rgba(20, 24, 33, .45); }
.dialog-buttons { display: flex; justify-content: flex-end; gap: 8px; margin-top: 14px; }
`;
