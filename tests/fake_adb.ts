/**
 * The one scripted stand-in for `AdbClient`'s device calls (`shell`, `exec`, `listDevices`) that
 * unit tests hand to services taking a `DeviceShell` (lib/adb/client.ts). It records every call
 * and answers from the test's script; the real client is tested on the wire in tests/adb/.
 */
import type { AdbDevice, CallOptions, DeviceShell, ShellResult } from "../lib/adb/client.ts";
import { ToolError } from "../lib/core/errors.ts";

/**
 * A scripted answer: stdout text, or stdout/stderr/exit status (`code` defaults to 0), `"hang"`
 * (no answer until the call's timeout or abort), an `Error` to reject with, or `undefined` for
 * an empty success.
 */
export type FakeReply =
  | string
  | { out?: string; err?: string; code?: number | null }
  | "hang"
  | Error
  | undefined;

export interface FakeCall {
  serial: string;
  kind: "shell" | "exec";
  argv: string[];
}

export type FakeScript = (
  argv: readonly string[],
  call: FakeCall,
) => FakeReply | Promise<FakeReply>;

const enc = new TextEncoder();

/** A `ShellResult` with `text` on stdout; for tests that answer a single call by hand. */
export function shellResult(text: string, exitCode: number | null = 0, stderr = ""): ShellResult {
  const stdout = enc.encode(text);
  return { stdout, stderr: enc.encode(stderr), exitCode, text: () => text };
}

export class FakeAdb implements DeviceShell {
  /** Every shell and exec call, in order. */
  readonly calls: FakeCall[] = [];
  /** How often `listDevices` was asked. */
  listings = 0;

  constructor(
    public script: FakeScript = () => undefined,
    public devices: AdbDevice[] = [
      { serial: "emulator-5554", state: "device", kind: "emulator" } as AdbDevice,
    ],
  ) {}

  /** The argv of every shell command, in order. */
  get argvs(): string[][] {
    return this.calls.filter((c) => c.kind === "shell").map((c) => c.argv);
  }

  listDevices(): Promise<AdbDevice[]> {
    this.listings++;
    return Promise.resolve(this.devices);
  }

  async shell(serial: string, argv: readonly string[], opts?: CallOptions): Promise<ShellResult> {
    const r = await this.#run("shell", serial, argv, opts);
    return shellResult(r.out, r.code, r.err);
  }

  async exec(serial: string, argv: readonly string[], opts?: CallOptions): Promise<Uint8Array> {
    const r = await this.#run("exec", serial, argv, opts);
    return enc.encode(r.out + r.err);
  }

  async #run(
    kind: "shell" | "exec",
    serial: string,
    argv: readonly string[],
    opts?: CallOptions,
  ): Promise<{ out: string; err: string; code: number | null }> {
    const call = { serial, kind, argv: [...argv] };
    this.calls.push(call);
    const a = await this.script(argv, call);
    if (a instanceof Error) throw a;
    if (a === "hang") return await hang(opts);
    if (typeof a === "string") return { out: a, err: "", code: 0 };
    return { out: a?.out ?? "", err: a?.err ?? "", code: a?.code === undefined ? 0 : a.code };
  }
}

/** Never answers: fails with `timeout` after the call's timeout, `cancelled` on its abort. */
function hang(opts?: CallOptions): Promise<never> {
  return new Promise((_, reject) => {
    const timer = setTimeout(
      () => reject(new ToolError("timeout", "Timed out: fake")),
      opts?.timeoutMs ?? 30_000,
    );
    opts?.signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(new ToolError("cancelled", "Cancelled: fake"));
    }, { once: true });
  });
}
