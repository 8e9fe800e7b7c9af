/**
 * Where the ADB server listens, resolved as the `adb` CLI does (client/commandline.cpp,
 * socket_spec.cpp): `$ADB_SERVER_SOCKET` (`tcp:<port>`, `tcp:<host>:<port>`, `tcp:[v6]:<port>`),
 * else `$ANDROID_ADB_SERVER_ADDRESS` + `$ANDROID_ADB_SERVER_PORT`, else 127.0.0.1:5037.
 */
import type { Env } from "../core/env.ts";
import { ToolError } from "../core/errors.ts";

export interface AdbServerAddress {
  host: string;
  port: number;
}

/** adb.h `DEFAULT_ADB_PORT`. */
const DEFAULT_ADB_SERVER_PORT = 5037;
const DEFAULT_ADB_SERVER_HOST = "127.0.0.1";
/** socket_spec.cpp: `tcp:<host>` without a port means the device transport port, not 5037. */
const DEFAULT_TCP_SPEC_PORT = 5555;

export function resolveAdbServerAddress(env: Env): AdbServerAddress {
  const socket = env.get("ADB_SERVER_SOCKET");
  if (socket !== undefined && socket !== "") return parseServerSocketSpec(socket);
  const host = env.get("ANDROID_ADB_SERVER_ADDRESS") || DEFAULT_ADB_SERVER_HOST;
  const portText = env.get("ANDROID_ADB_SERVER_PORT");
  const port = portText === undefined || portText === ""
    ? DEFAULT_ADB_SERVER_PORT
    : parsePort(portText, "ANDROID_ADB_SERVER_PORT");
  return { host: stripBrackets(host), port };
}

/** Parses `tcp:<port>`, `tcp:<host>:<port>`, `tcp:[v6]:<port>` and `tcp:<host>`. */
export function parseServerSocketSpec(spec: string): AdbServerAddress {
  const what = "ADB_SERVER_SOCKET";
  if (!spec.startsWith("tcp:")) {
    throw configError(
      `Cannot use ${what}=${JSON.stringify(spec)}: only tcp: specs are supported; ` +
        "set it to tcp:<host>:<port> or tcp:<port>",
    );
  }
  const rest = spec.slice(4);
  if (/^\d+$/.test(rest)) return { host: DEFAULT_ADB_SERVER_HOST, port: parsePort(rest, what) };
  let host: string;
  let portText: string | undefined;
  if (rest.startsWith("[")) {
    const end = rest.indexOf("]");
    if (end < 0) throw badSpec(spec, "unclosed [ in the IPv6 address");
    host = rest.slice(1, end);
    const after = rest.slice(end + 1);
    if (after !== "" && !after.startsWith(":")) throw badSpec(spec, "expected :<port> after ]");
    portText = after === "" ? undefined : after.slice(1);
  } else {
    const colon = rest.lastIndexOf(":");
    if (colon < 0) {
      host = rest;
    } else {
      host = rest.slice(0, colon);
      portText = rest.slice(colon + 1);
      if (host.includes(":")) throw badSpec(spec, "write IPv6 addresses as [addr]:port");
    }
  }
  if (host === "" || /[\s/]/.test(host)) throw badSpec(spec, "missing or malformed host");
  const port = portText === undefined ? DEFAULT_TCP_SPEC_PORT : parsePort(portText, what);
  return { host: host === "localhost" ? DEFAULT_ADB_SERVER_HOST : host, port };
}

/** A misconfigured environment: no ADB server can be reached until the variable is fixed. */
function configError(message: string): ToolError {
  return new ToolError("adb_unavailable", message);
}

function badSpec(spec: string, detail: string) {
  return configError(
    `Cannot parse ADB_SERVER_SOCKET=${JSON.stringify(spec)}: ${detail}; ` +
      "use tcp:<host>:<port> or tcp:<port>",
  );
}

function parsePort(text: string, what: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) {
    throw configError(
      `Invalid ${what} port ${JSON.stringify(text)}: it must be a number from 1 to 65535; ` +
        "fix or unset the variable",
    );
  }
  return port;
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** True for loopback addresses, the only ones where starting a server ourselves makes sense. */
export function isLocalAddress(address: AdbServerAddress): boolean {
  const h = address.host.toLowerCase();
  return h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

export function formatAddress(address: AdbServerAddress): string {
  return address.host.includes(":")
    ? `[${address.host}]:${address.port}`
    : `${address.host}:${address.port}`;
}
