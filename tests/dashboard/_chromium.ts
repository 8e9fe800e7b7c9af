/**
 * Headless Chromium (the Debian `chromium` package) driven over the DevTools protocol with
 * Deno's own WebSocket: no npm browser package, no browser download. `findChromium()` is null
 * where it is not installed; tests then skip with a note.
 */
import { pollUntil } from "../wait.ts";

/** How long Chromium may take to print its DevTools address. */
export const CHROMIUM_START_TIMEOUT_MS = 20_000;
/** How long one DevTools command may take. */
export const CDP_COMMAND_TIMEOUT_MS = 15_000;

const CANDIDATES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/** The Chromium binary on PATH (or $KEYNOBI_CHROMIUM), or null. */
export async function findChromium(): Promise<string | null> {
  const explicit = Deno.env.get("KEYNOBI_CHROMIUM");
  const names = explicit ? [explicit] : CANDIDATES;
  for (const name of names) {
    try {
      const r = await new Deno.Command("sh", {
        args: ["-c", 'command -v "$1"', "sh", name],
        stdout: "piped",
        stderr: "null",
      }).output();
      const path = new TextDecoder().decode(r.stdout).trim();
      if (r.success && path) return path;
    } catch { /* no sh */ }
  }
  return null;
}

type Json = Record<string, unknown>;

export interface Page {
  /** A DevTools command on the page's target. */
  send<T = Json>(method: string, params?: Json): Promise<T>;
  /** Evaluate an expression in the page; returns its value (promises awaited). */
  eval<T = unknown>(expression: string): Promise<T>;
  /** Poll `expression` until it is truthy (every 100 ms, at most `timeoutMs`); returns it. */
  waitFor<T = unknown>(expression: string, what: string, timeoutMs?: number): Promise<T>;
  screenshot(path: string): Promise<void>;
  /** Console messages and exceptions the page reported. */
  errors: string[];
}

export interface Browser {
  open(url: string, size?: { width: number; height: number }): Promise<Page>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function launchChromium(binary: string): Promise<Browser> {
  const profile = await Deno.makeTempDir({ prefix: "keynobi-chromium-" });
  const child = new Deno.Command(binary, {
    args: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-extensions",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--metrics-recording-only",
      "--password-store=basic",
      "--use-mock-keychain",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let err = "";
  const ready = Promise.withResolvers<string>();
  const timer = setTimeout(
    () => ready.reject(new Error(`chromium did not start:\n${err.slice(-2000)}`)),
    CHROMIUM_START_TIMEOUT_MS,
  );
  (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      err += chunk;
      const m = /DevTools listening on (ws:\/\/[^\s]+)/.exec(err);
      if (m) ready.resolve(m[1]);
    }
    ready.reject(new Error(`chromium exited:\n${err.slice(-2000)}`));
  })();
  let browserWs: string;
  try {
    browserWs = await ready.promise;
  } catch (e) {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await child.status;
    await Deno.remove(profile, { recursive: true }).catch(() => {});
    throw e;
  } finally {
    clearTimeout(timer);
  }
  const http = new URL(browserWs);
  const devtools = `http://${http.host}`;
  const sockets: WebSocket[] = [];

  return {
    async open(url, size = { width: 1440, height: 1800 }) {
      const target = await (await fetch(`${devtools}/json/new?about:blank`, { method: "PUT" }))
        .json() as { webSocketDebuggerUrl: string };
      const ws = new WebSocket(target.webSocketDebuggerUrl);
      sockets.push(ws);
      await new Promise((resolve, reject) => {
        ws.onopen = resolve;
        ws.onerror = () => reject(new Error("cannot connect to the page's DevTools socket"));
      });
      let next = 0;
      const waiting = new Map<number, PromiseWithResolvers<Json>>();
      const errors: string[] = [];
      ws.onmessage = (m) => {
        const msg = JSON.parse(m.data as string) as Json;
        if (typeof msg.id === "number") {
          const w = waiting.get(msg.id);
          waiting.delete(msg.id);
          if (msg.error) w?.reject(new Error(JSON.stringify(msg.error)));
          else w?.resolve(msg.result as Json);
        } else if (msg.method === "Runtime.exceptionThrown") {
          errors.push(JSON.stringify((msg.params as Json).exceptionDetails).slice(0, 1000));
        } else if (msg.method === "Runtime.consoleAPICalled") {
          const p = msg.params as { type: string; args: { value?: unknown }[] };
          if (p.type === "error") errors.push(p.args.map((a) => String(a.value)).join(" "));
        }
      };
      const send = <T = Json>(method: string, params: Json = {}): Promise<T> => {
        const id = ++next;
        const w = Promise.withResolvers<Json>();
        waiting.set(id, w);
        ws.send(JSON.stringify({ id, method, params }));
        const t = setTimeout(
          () => w.reject(new Error(`DevTools ${method} did not answer`)),
          CDP_COMMAND_TIMEOUT_MS,
        );
        return w.promise.finally(() => clearTimeout(t)) as Promise<T>;
      };
      const evaluate = async <T>(expression: string): Promise<T> => {
        const r = await send<{ result: { value?: T }; exceptionDetails?: Json }>(
          "Runtime.evaluate",
          { expression, returnByValue: true, awaitPromise: true },
        );
        if (r.exceptionDetails) {
          throw new Error(`page error: ${JSON.stringify(r.exceptionDetails).slice(0, 800)}`);
        }
        return r.result.value as T;
      };
      await send("Runtime.enable");
      await send("Page.enable");
      await send("Emulation.setDeviceMetricsOverride", {
        width: size.width,
        height: size.height,
        deviceScaleFactor: 1,
        mobile: false,
      });
      await send("Page.navigate", { url });
      return {
        send,
        eval: evaluate,
        async waitFor<T>(expression: string, what: string, timeoutMs = 20_000): Promise<T> {
          try {
            return await pollUntil(
              () => evaluate<T>(expression).catch((e) => (e as Error).message as unknown as T),
              (v) =>
                v === true || (v !== false && v !== null && v !== undefined && v !== 0 &&
                  typeof v !== "string"),
              what,
              { timeoutMs, intervalMs: 100 },
            );
          } catch (e) {
            throw new Error(
              `${(e as Error).message}; page errors: ${errors.join(" | ").slice(0, 1000)}`,
            );
          }
        },
        async screenshot(path: string) {
          const r = await send<{ data: string }>("Page.captureScreenshot", {
            format: "png",
            captureBeyondViewport: false,
          });
          const bin = atob(r.data);
          const bytes = new Uint8Array(bin.length);
          for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
          await Deno.writeFile(path, bytes);
        },
        errors,
      };
    },
    async [Symbol.asyncDispose]() {
      for (const ws of sockets) {
        try {
          ws.close();
        } catch { /* closed */ }
      }
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      const exited = await Promise.race([
        child.status.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 3000)),
      ]);
      if (!exited) {
        try {
          child.kill("SIGKILL");
        } catch { /* gone */ }
        await child.status;
      }
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}
