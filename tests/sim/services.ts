/**
 * The feature areas attached to every simulated device. Each area lives in its own folder and
 * exports a factory; add yours to SERVICES (one line) and keep its code in its folder.
 */
import type { DeviceService, DeviceSpec, VirtualDevice } from "./device.ts";
import { uiService } from "./ui/service.ts";
import { appsService } from "./apps/service.ts";
import { logcatService } from "./logcat/service.ts";
import { screenrecordService } from "./screenrecord/service.ts";

/** What a service may use of the simulated world beyond its own device. */
export interface SimWorld {
  /** The simulator's temp root (host side). */
  readonly root: string;
  readonly sdkRoot: string;
  readonly projects: Readonly<Record<string, string>>;
  /** The ADB server's port on 127.0.0.1. */
  readonly adbPort: () => number;
  /** Every device on the server's list or temporarily disconnected. */
  devices(): VirtualDevice[];
  /** Bring a new device online (e.g. an emulator that booted); services are attached to it. */
  addDevice(spec: DeviceSpec): VirtualDevice;
  /** Take a device away for good (an emulator that powered off). */
  removeDevice(serial: string): void;
}

export type ServiceFactory = (device: VirtualDevice, world: SimWorld) => DeviceService;

export const SERVICES: ServiceFactory[] = [
  uiService,
  appsService,
  logcatService,
  screenrecordService,
];
