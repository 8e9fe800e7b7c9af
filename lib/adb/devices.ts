/**
 * `host:devices` / `host:devices-l` payloads (transport.cpp `append_transport`): the serial padded
 * to 22 columns, the state (which may contain spaces), then in the long form an unkeyed devpath and
 * `product:` `model:` `device:` `transport_id:` fields. As the source comment advises, keyed fields
 * are found by scanning from the end of the line.
 */

export type DeviceKind = "emulator" | "usb" | "wireless";

export interface AdbDevice {
  serial: string;
  /** `device`, `offline`, `unauthorized`, `authorizing`, `no permissions (…)`, … */
  state: string;
  kind: DeviceKind;
  product?: string;
  model?: string;
  device?: string;
  devpath?: string;
  transportId?: number;
}

/** Devices a single listing may report; the rest are dropped (an ADB server rarely has 20). */
const MAX_LISTED_DEVICES = 256;

/** `to_string(ConnectionState)` in adb.cpp: the one-word states. */
const KNOWN_DEVICE_STATES: ReadonlySet<string> = new Set([
  "offline",
  "bootloader",
  "device",
  "host",
  "recovery",
  "rescue",
  "sideload",
  "unauthorized",
  "authorizing",
  "connecting",
  "detached",
]);

const KEYED_FIELDS = new Set(["product", "model", "device", "transport_id"]);
const NO_SERIAL = "(no serial number)";

/** Parses either listing format; also tolerates the CLI's `List of devices attached` header. */
export function parseDeviceList(text: string): AdbDevice[] {
  const out: AdbDevice[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "");
    if (line.trim() === "" || line.startsWith("List of devices") || line.startsWith("* ")) continue;
    const dev = parseDeviceLine(line);
    if (dev !== null) out.push(dev);
    if (out.length >= MAX_LISTED_DEVICES) break;
  }
  return out;
}

export function parseDeviceLine(line: string): AdbDevice | null {
  let serial: string;
  let rest: string;
  if (line.startsWith(NO_SERIAL)) {
    serial = NO_SERIAL;
    rest = line.slice(NO_SERIAL.length);
  } else {
    const m = /^(\S+)[\t ]+(.*)$/.exec(line);
    if (m === null) return null;
    serial = m[1];
    rest = m[2];
  }
  const tokens = rest.trim().split(/[\t ]+/).filter((t) => t !== "");
  const fields: Record<string, string> = {};
  while (tokens.length > 1) {
    const last = tokens[tokens.length - 1];
    const colon = last.indexOf(":");
    const key = colon > 0 ? last.slice(0, colon) : "";
    if (!KEYED_FIELDS.has(key) || key in fields) break;
    fields[key] = last.slice(colon + 1);
    tokens.pop();
  }
  if (tokens.length === 0) return null;
  let state: string;
  let devpath: string | undefined;
  if (KNOWN_DEVICE_STATES.has(tokens[0])) {
    state = tokens[0];
    if (tokens.length > 1) devpath = tokens.slice(1).join(" ");
  } else {
    // A multi-word state such as `no permissions (…); see [http://…]`, maybe then a devpath.
    const last = tokens[tokens.length - 1];
    if (tokens.length > 2 && /^usb:/.test(last)) {
      devpath = last;
      tokens.pop();
    }
    state = tokens.join(" ");
  }
  const dev: AdbDevice = { serial, state, kind: deviceKind(serial) };
  if (fields.product) dev.product = fields.product;
  if (fields.model) dev.model = fields.model;
  if (fields.device) dev.device = fields.device;
  if (devpath) dev.devpath = devpath;
  if (fields.transport_id !== undefined && /^\d+$/.test(fields.transport_id)) {
    dev.transportId = Number(fields.transport_id);
  }
  return dev;
}

/** `emulator-N` → emulator; `host:port` or an mDNS service name → wireless; else USB. */
export function deviceKind(serial: string): DeviceKind {
  if (/^emulator-\d+$/.test(serial)) return "emulator";
  if (/\._adb-tls-connect\._tcp\.?$|\._adb\._tcp\.?$/.test(serial)) return "wireless";
  if (/^(\[[0-9A-Fa-f:.%\w]+\]|[^:\s[\]]+):\d{1,5}$/.test(serial)) return "wireless";
  return "usb";
}
