/** A scripted stand-in for AdbClient's exec/shell, recording every argv. */
import type { CallOptions, ShellResult } from "../../lib/adb/client.ts";
import { ToolError } from "../../lib/core/errors.ts";
import type { UiAdb } from "../../lib/ui/capture.ts";

export type Answer = string | { stdout?: string; stderr?: string } | "hang" | Error;

const enc = new TextEncoder();

export class FakeAdb implements UiAdb {
  calls: { serial: string; kind: "exec" | "shell"; argv: string[] }[] = [];
  constructor(
    public answer: (kind: "exec" | "shell", argv: readonly string[], serial: string) => Answer,
  ) {}

  #run(kind: "exec" | "shell", serial: string, argv: readonly string[], opts?: CallOptions) {
    this.calls.push({ serial, kind, argv: [...argv] });
    const a = this.answer(kind, argv, serial);
    if (a instanceof Error) return Promise.reject(a);
    if (a === "hang") {
      return new Promise<{ stdout: string; stderr: string }>((_, reject) => {
        const signal = opts?.signal;
        const timer = setTimeout(
          () => reject(new ToolError("timeout", "Timed out: fake")),
          opts?.timeoutMs ?? 30_000,
        );
        signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new ToolError("cancelled", "Cancelled: fake"));
        }, { once: true });
      });
    }
    return Promise.resolve(
      typeof a === "string"
        ? { stdout: a, stderr: "" }
        : { stdout: a.stdout ?? "", stderr: a.stderr ?? "" },
    );
  }

  async exec(serial: string, argv: readonly string[], opts?: CallOptions): Promise<Uint8Array> {
    const r = await this.#run("exec", serial, argv, opts);
    return enc.encode(r.stdout + r.stderr);
  }

  async shell(serial: string, argv: readonly string[], opts?: CallOptions): Promise<ShellResult> {
    const r = await this.#run("shell", serial, argv, opts);
    const stdout = enc.encode(r.stdout);
    return { stdout, stderr: enc.encode(r.stderr), exitCode: 0, text: () => r.stdout };
  }
}
