/**
 * What the dashboard shows of each device's screen: the last screenshot an agent took and the
 * last element list an agent was shown, as the app's UI client returned them. Kept in memory only
 * (one of each per device, bounded), never written anywhere: the app's window, not a record.
 */
import type { UiClient } from "../ui/shared/client.ts";

/** Largest screenshot kept per device; a larger one is noted by size only. */
const MAX_KEPT_SCREENSHOT_BYTES = 4 * 1024 * 1024;
/** Longest element list text kept per device. */
const MAX_KEPT_LIST_CHARS = 32 * 1024;
/** Devices remembered; the least recently seen is forgotten past this. */
const MAX_OBSERVED_DEVICES = 32;

interface KeptScreenshot {
  at: string;
  mime: string;
  width: number;
  height: number;
  bytes: number;
  /** Null when it was larger than MAX_KEPT_SCREENSHOT_BYTES. */
  image: Uint8Array | null;
}

interface KeptList {
  at: string;
  text: string;
  truncated: boolean;
}

interface DeviceView {
  screenshot: KeptScreenshot | null;
  list: KeptList | null;
}

export class UiObserver {
  #devices = new Map<string, DeviceView>();
  /** Bumped on every change (the live feed compares it). */
  version = 0;

  #view(serial: string): DeviceView {
    let v = this.#devices.get(serial);
    if (v) this.#devices.delete(serial);
    v ??= { screenshot: null, list: null };
    this.#devices.set(serial, v);
    while (this.#devices.size > MAX_OBSERVED_DEVICES) {
      this.#devices.delete(this.#devices.keys().next().value!);
    }
    return v;
  }

  screenshot(
    serial: string,
    r: { image: Uint8Array; mimeType: string; imageWidth: number; imageHeight: number },
  ): void {
    const small = r.image.length <= MAX_KEPT_SCREENSHOT_BYTES;
    this.#view(serial).screenshot = {
      at: new Date().toISOString(),
      mime: r.mimeType,
      width: r.imageWidth,
      height: r.imageHeight,
      bytes: r.image.length,
      image: small ? r.image : null,
    };
    this.version++;
  }

  list(serial: string, text: string): void {
    this.#view(serial).list = {
      at: new Date().toISOString(),
      text: text.slice(0, MAX_KEPT_LIST_CHARS),
      truncated: text.length > MAX_KEPT_LIST_CHARS,
    };
    this.version++;
  }

  get(serial: string): DeviceView | null {
    return this.#devices.get(serial) ?? null;
  }

  serials(): string[] {
    return [...this.#devices.keys()];
  }

  /**
   * Watch `ui`: screenshots, element lists and the list an action settled on are remembered as
   * they are returned to the tool that asked. The calls themselves are unchanged.
   */
  watch(ui: UiClient): void {
    const screenshot = ui.screenshot.bind(ui);
    ui.screenshot = async (p, opts) => {
      const r = await screenshot(p, opts);
      this.screenshot(p.serial, r);
      return r;
    };
    const observe = ui.observe.bind(ui);
    ui.observe = async (p, opts) => {
      const r = await observe(p, opts);
      if (!p.internal) this.list(p.serial, r.text);
      return r;
    };
    const act = ui.act.bind(ui);
    ui.act = async (p, opts) => {
      const r = await act(p, opts);
      if (r.settle) this.list(p.serial, r.settle.text);
      return r;
    };
    const settle = ui.settle.bind(ui);
    ui.settle = async (p, opts) => {
      const r = await settle(p, opts);
      this.list(p.serial, r.text);
      return r;
    };
  }
}
